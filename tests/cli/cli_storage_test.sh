#!/bin/sh
# `linsolve solve --storage`: dense or sparse storage of A, chosen by the
# default auto rule (a coordinate file that dense storage cannot hold is
# solved sparse, in O(nnz) memory), and the old --format dense|sparse|auto
# spelling (one warning). Inputs that can be read only once (standard input,
# a FIFO) go through the same choice.
#
# usage: cli_storage_test.sh LINSOLVE MATRICES_DIR
# Prints one check line per case; exits with the number of failures.
set -u
LS=$1
MAT=$2
LS_TEST_NAME=storage
. "$(dirname "$0")/cli_lib.sh"

# --- the 250 000-row 2-D Poisson coordinate file: sparse with no flag ----
P=$TMP/poisson250k.mtx
"$LS" gen poisson2d --grid 500x500 -o "$P" || { echo "gen failed"; exit 99; }
# Peak RSS of the child, measured by getrusage: dense storage of A alone
# would be 250000^2 * 8 bytes = 500 GB; the CSR matrix is 1.248 M entries.
python3 - "$LS" "$P" "$TMP/big.json" <<'PY' >"$TMP/rss" 2>"$ERR"
import resource, subprocess, sys
ls, path, out = sys.argv[1:]
with open(out, "w") as f:
    rc = subprocess.call([ls, "solve", path, "--json"], stdout=f)
kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(rc, kib)
PY
read big_rc big_kib <"$TMP/rss"
cp "$TMP/big.json" "$OUT"
rc=$big_rc
expect_exit 0 "250000-row Poisson, no flag"
[ "$(json_get "$TMP/big.json" storage)" = sparse ] && ok=1 || ok=0
check "$ok" "250000-row Poisson is stored sparse"
has "$TMP/big.json" "stored sparse: 250000 x 250000 dense would need 500 GB" "250000-row Poisson"
# O(nnz): 1.248 M entries; a bound of 1 GiB is 860 bytes an entry, 0.2 % of dense.
echo "peak RSS of the 250000-row solve: $big_kib KiB"
[ "$big_kib" -gt 0 ] && [ "$big_kib" -lt 1048576 ] && ok=1 || ok=0
check "$ok" "250000-row Poisson peak RSS $big_kib KiB < 1 GiB (dense: 500 GB)"

# Forced dense: refused from the header, at once, naming the limit.
run solve "$P" --storage dense
expect_exit 2 "--storage dense on the 250000-row file"
has "$ERR" "exceeds the limit" "--storage dense on the 250000-row file"

# --- the rule on small files: LS_MAX_ELEMENTS lowers the dense limit ----
PDE=$MAT/real/pde900.mtx
LS_MAX_ELEMENTS=100000 "$LS" solve "$PDE" --json >"$OUT" 2>"$ERR"
rc=$?
expect_exit 0 "pde900 over a dense limit of 1e5 elements"
has "$OUT" "900 x 900 dense would need 0.00648 GB" "pde900 over the limit"
run solve "$PDE" --json --backend cpu
expect_exit 0 "pde900 (fits dense)"
[ "$(json_get "$OUT" method)" != "<no JSON>" ] && ! grep -q '"storage": "sparse"' "$OUT" && ok=1 || ok=0
check "$ok" "pde900 with no flag is solved dense (it fits, n <= 4096)"
run solve "$PDE" --precond ilu0 --json
expect_exit 0 "pde900 --precond ilu0"
has "$OUT" "stored sparse: --precond is an option of the sparse solvers" "--precond"
run solve "$PDE" --storage sparse --method gmres --json
expect_exit 0 "--storage sparse --method gmres"
has "$OUT" '"storage_reason": "--storage sparse"' "--storage sparse"

# --- the deprecated spelling: same meaning, one warning line ----
run solve "$PDE" --format sparse --quiet
expect_exit 0 "--format sparse (deprecated)"
[ "$(grep -c 'deprecated' "$ERR")" -eq 1 ] && [ "$(wc -l <"$ERR")" -eq 1 ] && ok=1 || ok=0
check "$ok" "--format sparse prints exactly one warning line"
has "$ERR" "use --storage sparse" "--format sparse"
run solve "$PDE" --format dense --backend cpu --method lu --quiet
expect_exit 0 "--format dense (deprecated)"
run solve "$PDE" --storage bogus
expect_exit 1 "--storage bogus"
has "$ERR" "dense, sparse, auto" "--storage bogus"
# --format mtx|npy is the file format on either path
run solve "$PDE" --storage sparse --format npy -o "$TMP/x.bin" --quiet
expect_exit 0 "--storage sparse --format npy -o x.bin"
head -c 6 "$TMP/x.bin" | od -c | grep -q 'N   U   M   P   Y' && ok=1 || ok=0
check "$ok" "--format npy writes .npy whatever the extension (sparse path)"

# --- inputs read once: standard input and a FIFO take the same rule ----
LS_MAX_ELEMENTS=100000 "$LS" solve - --json <"$PDE" >"$OUT" 2>"$ERR"
rc=$?
expect_exit 0 "pde900 on standard input over the dense limit"
has "$OUT" '"storage": "sparse"' "pde900 on standard input"
mkfifo "$TMP/fifo" || exit 99
cat "$PDE" >"$TMP/fifo" &
"$LS" solve "$TMP/fifo" --storage sparse --json >"$OUT" 2>"$ERR"
rc=$?
wait
expect_exit 0 "pde900 through a FIFO, --storage sparse"
cat "$PDE" >"$TMP/fifo" &
"$LS" solve "$TMP/fifo" --backend cpu --json >"$OUT" 2>"$ERR"
rc=$?
wait
expect_exit 0 "pde900 through a FIFO, dense"
if command -v bash >/dev/null 2>&1; then
    bash -c '"$0" solve <(cat "$1") --backend cpu --quiet' "$LS" "$PDE" >"$OUT" 2>"$ERR"
    rc=$?
    expect_exit 0 "A as a process substitution <(cat pde900.mtx)"
fi

echo "$failures failure(s)"
exit "$failures"
