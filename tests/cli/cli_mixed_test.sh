#!/bin/sh
# `linsolve solve --precision mixed` end to end on the CPU: the report and
# the JSON say the factor precision, the refinement, each residual and
# whether it fell back; exit statuses of the edges.
# usage: cli_mixed_test.sh LINSOLVE
set -u
LS=$1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ls_mixed.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT
failures=0

check() {
    if [ "$1" = 1 ]; then
        printf '%s ... ok\n' "$2"
    else
        printf '%s ... FAILED\n' "$2"
        sed 's/^/    out: /' "$TMP/out" | head -n 30
        sed 's/^/    err: /' "$TMP/err" | head -n 10
        failures=$((failures + 1))
    fi
}

# json_ok FILE EXPR: 1 when the python expression on the object j holds.
json_ok() {
    python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(1 if eval(sys.argv[2]) else 0)
PY
}

"$LS" gen randsvd -n 150 --cond 1e4 --seed 3 -o "$TMP/a.mtx" >/dev/null 2>&1
"$LS" gen randsvd -n 120 --cond 1e13 --seed 4 -o "$TMP/hard.mtx" >/dev/null 2>&1
"$LS" gen singular -n 60 --seed 5 -o "$TMP/sing.mtx" >/dev/null 2>&1

"$LS" solve "$TMP/a.mtx" --precision mixed --backend cpu --json >"$TMP/out" 2>"$TMP/err"
rc=$?
check "$([ $rc = 0 ] && json_ok "$TMP/out" \
  "j['mixed']['factor'] == 'fp32' and j['mixed']['refinement'] in ('ir', 'gmres') and \
   not j['mixed']['fell_back'] and j['mixed']['converged'] and j['residual'] <= 30 and \
   len(j['mixed']['residuals']) == j['mixed']['iterations'] + 1 and \
   j['mixed']['pivot'] == 'partial' and \
   j['mixed']['residuals'][-1] <= 30")" "json: cond 1e4 converges in fp32 + FP64 refinement"

"$LS" solve "$TMP/a.mtx" --precision mixed --backend cpu -o "$TMP/x.mtx" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "$([ $rc = 0 ] && grep -q '^  mixed      factor fp32, pivoting partial, refinement' "$TMP/out" &&
  grep -q '^  residuals ' "$TMP/out" && grep -q 'converged' "$TMP/out" && [ -s "$TMP/x.mtx" ] &&
  echo 1)" "text report: factor, refinement, residuals; X written"

"$LS" solve "$TMP/hard.mtx" --precision mixed --refine ir --backend cpu --json >"$TMP/out" 2>"$TMP/err"
rc=$?
check "$([ $rc = 0 ] && json_ok "$TMP/out" \
  "j['mixed']['fell_back'] and not j['mixed']['converged'] and j['residual'] <= 30 and \
   j['mixed']['final_residual'] <= 30")" "cond 1e13: falls back to FP64 and says so"

"$LS" solve "$TMP/sing.mtx" --precision mixed --backend cpu --json >"$TMP/out" 2>"$TMP/err"
rc=$?
check "$([ $rc = 3 ] && json_ok "$TMP/out" "j['status'] == 'singular' and j['info'] > 0 and \
   j['mixed']['fell_back']")" "singular: exit 3 after the FP64 fallback"

"$LS" solve "$TMP/a.mtx" --precision mixed --factor bf16 --backend cpu >"$TMP/out" 2>"$TMP/err"
rc=$?
check "$([ $rc = 5 ] && grep -q 'bf16 is not available on the cpu' "$TMP/err" && echo 1)" \
  "--factor bf16 on the cpu: refused by name"

"$LS" solve "$TMP/a.mtx" --factor fp32 >"$TMP/out" 2>"$TMP/err"
rc=$?
check "$([ $rc = 1 ] && grep -q 'need --precision mixed' "$TMP/err" && echo 1)" \
  "--factor without --precision mixed: usage error"

"$LS" solve "$TMP/a.mtx" --precision mixed --factor fp8 >"$TMP/out" 2>"$TMP/err"
rc=$?
check "$([ $rc = 1 ] && grep -q "unknown factor precision 'fp8'" "$TMP/err" && echo 1)" \
  "--factor fp8: usage error"

"$LS" solve "$TMP/a.mtx" --precision mixed --pivot rbt --backend cpu >"$TMP/out" 2>"$TMP/err"
rc=$?
check "$([ $rc = 5 ] && grep -q 'pivoting rbt is not available for mixed precision on the cpu' \
  "$TMP/err" && echo 1)" "--pivot rbt on the cpu: refused by name"

"$LS" solve "$TMP/a.mtx" --pivot rbt >"$TMP/out" 2>"$TMP/err"
rc=$?
check "$([ $rc = 1 ] && grep -q 'pivot rbt needs --precision mixed' "$TMP/err" && echo 1)" \
  "--pivot rbt without --precision mixed: usage error"

"$LS" solve "$TMP/a.mtx" --precision mixed --pivot rook >"$TMP/out" 2>"$TMP/err"
rc=$?
check "$([ $rc = 1 ] && grep -q "unknown pivoting 'rook'" "$TMP/err" && echo 1)" \
  "--pivot rook: usage error"

echo "$failures failure(s)"
exit "$failures"
