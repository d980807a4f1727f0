#!/bin/sh
# `linsolve solve` output and input safety: -o checked before anything is
# read or solved, every write checked (the report and --json on a full
# device exit 2, as an unwritable -o does), JSON and plain messages on the
# sparse path's failures, a stack's X in Matrix Market only when it is 2-D,
# '-' as B of a stack, a FIFO as A of a stack.
#
# usage: cli_output_test.sh LINSOLVE MATRICES_DIR
# Prints one check line per case; exits with the number of failures.
set -u
LS=$1
MAT=$2
LS_TEST_NAME=output
. "$(dirname "$0")/cli_lib.sh"
PDE=$MAT/real/pde900.mtx

# npy FILE SHAPE VALUES...: a little-endian float64 C-order .npy (no NumPy needed)
npy() {
    python3 - "$@" <<'PY'
import struct, sys
path, shape = sys.argv[1], tuple(int(s) for s in sys.argv[2].split(","))
vals = [float(v) for v in sys.argv[3:]]
h = "{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }" % "".join(f"{d}, " for d in shape)
h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode())
    f.write(struct.pack("<%dd" % len(vals), *vals))
PY
}

# --- -o is checked first: A is a FIFO nobody writes, so reading it would hang ----
mkfifo "$TMP/never" || exit 99
timeout 20 "$LS" solve "$TMP/never" -o "$TMP/no/such/dir/X.mtx" --json >"$OUT" 2>"$ERR"
rc=$?
expect_exit 2 "unwritable -o, checked before A is read"
has "$ERR" "$TMP/no/such/dir" "unwritable -o"
[ "$(json_get "$OUT" exit_code)" = 2 ] && ok=1 || ok=0
check "$ok" "unwritable -o: --json still prints its object"

# --- every write is checked: the report on a full device ----
if [ -w /dev/full ]; then
    "$LS" solve "$PDE" --backend cpu --json >/dev/full 2>"$ERR"
    rc=$?
    expect_exit 2 "dense --json > /dev/full"
    has "$ERR" "<stdout>: write error" "dense --json > /dev/full"
    "$LS" solve "$PDE" --backend cpu >/dev/full 2>"$ERR"
    rc=$?
    expect_exit 2 "dense report > /dev/full"
    "$LS" solve "$PDE" --storage sparse --json >/dev/full 2>"$ERR"
    rc=$?
    expect_exit 2 "sparse --json > /dev/full"
    "$LS" solve "$PDE" --backend cpu -o - >/dev/full 2>"$ERR"
    rc=$?
    expect_exit 2 "dense X to standard output on /dev/full"
fi

# --- the sparse path: JSON on invalid input, messages without source places ----
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 x\n3 3 1\n' >"$TMP/bad.mtx"
run solve "$TMP/bad.mtx" --storage sparse --json
expect_exit 2 "--storage sparse --json on a malformed file"
[ "$(json_get "$OUT" status)" = invalid_input ] && ok=1 || ok=0
check "$ok" "--storage sparse --json on a malformed file prints a JSON object"
has "$ERR" "bad.mtx:4" "sparse path message names file and line"
grep -q '\.c:[0-9]' "$ERR" && ok=0 || ok=1
check "$ok" "sparse path message shows no source location without --verbose"
run solve "$TMP/bad.mtx" --storage sparse --verbose
grep -q '\.c:[0-9]' "$ERR" && ok=1 || ok=0
check "$ok" "sparse path message shows the source location with --verbose"
run solve "$TMP/bad.mtx" --storage sparse -o "$TMP/x.mtx" --quiet
[ -e "$TMP/x.mtx" ] && ok=0 || ok=1
check "$ok" "no X file from a failed read"

# --- stacks: -o X.mtx only for a 2-D X; '-' as B; a FIFO as A ----
npy "$TMP/A.npy" 2,2,2  4 1 1 3  2 0 0 5
npy "$TMP/b2.npy" 2,2   1 2  2 5
npy "$TMP/b3.npy" 2,2,1 1 2  2 5
run solve "$TMP/A.npy" "$TMP/b2.npy" -o "$TMP/X2.mtx"
expect_exit 0 "stack with B (2, 2), -o X.mtx"
head -n 1 "$TMP/X2.mtx" | grep -q '^%%MatrixMarket matrix array real general' && ok=1 || ok=0
check "$ok" "stack -o X.mtx is Matrix Market, not .npy bytes"
grep -v '^%' "$TMP/X2.mtx" | head -n 1 | grep -q '^2 2$' && ok=1 || ok=0
check "$ok" "stack -o X.mtx holds batch x n (2 x 2)"
echo "old content" >"$TMP/X3.mtx"
run solve "$TMP/A.npy" "$TMP/b3.npy" -o "$TMP/X3.mtx"
expect_exit 2 "stack with B (2, 2, 1), -o X.mtx"
has "$ERR" "Matrix Market holds two" "3-D stack to .mtx"
[ "$(cat "$TMP/X3.mtx")" = "old content" ] && ok=1 || ok=0
check "$ok" "3-D stack to .mtx leaves the old file alone"
"$LS" solve "$TMP/A.npy" - --json <"$TMP/b2.npy" >"$OUT" 2>"$ERR"
rc=$?
expect_exit 0 "'-' as B of a stack"
[ "$(json_get "$OUT" batch)" = 2 ] && ok=1 || ok=0
check "$ok" "'-' as B of a stack: 2 systems solved"
mkfifo "$TMP/afifo" || exit 99
cat "$TMP/A.npy" >"$TMP/afifo" &
"$LS" solve "$TMP/afifo" "$TMP/b2.npy" -o "$TMP/X.npy" --quiet >"$OUT" 2>"$ERR"
rc=$?
wait
expect_exit 0 "a FIFO as A of a stack"
head -c 6 "$TMP/X.npy" | od -c | grep -q 'N   U   M   P   Y' && ok=1 || ok=0
check "$ok" "a FIFO as A of a stack: X.npy written"

# --- the report names the path that ran and why ----
run solve "$PDE" --backend cpu --json
[ "$(json_get "$OUT" path)" = dense ] && ok=1 || ok=0
check "$ok" "dense --json: path dense"
has "$OUT" '"why": "one dense system of order 900' "dense --json"
run solve "$PDE" --backend cpu
has "$OUT" "path       dense" "dense report"
run solve "$PDE" --storage sparse --method gmres --json
[ "$(json_get "$OUT" path)" = sparse-krylov ] && ok=1 || ok=0
check "$ok" "sparse --method gmres --json: path sparse-krylov"

echo "$failures failure(s)"
exit "$failures"
