# Shared by the CLI check scripts (sourced after LS and MAT are set, with
# LS_TEST_NAME naming the temporary folder): a temporary folder removed at
# exit, the tool's run with its output kept, and one check line per case.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ls_${LS_TEST_NAME:-cli}.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT
failures=0
rc=0
OUT=$TMP/stdout
ERR=$TMP/stderr

# run ARGS...: the tool, stdout and stderr in $OUT and $ERR, status in $rc.
run() {
    "$LS" "$@" >"$OUT" 2>"$ERR"
    rc=$?
}

# check OK NAME [DETAIL]: a failure (OK not 1) shows what the tool said.
check() {
    if [ "$1" = 1 ]; then
        printf '%s ... ok\n' "$2"
    else
        printf '%s ... FAILED %s\n' "$2" "${3:-}"
        sed 's/^/    stdout: /' "$OUT" | head -n 10
        sed 's/^/    stderr: /' "$ERR" | head -n 10
        failures=$((failures + 1))
    fi
}

expect_exit() {
    [ "$rc" -eq "$1" ] && check 1 "$2: exit $1" || check 0 "$2: exit $1" "(got $rc)"
}

has() { # has FILE TEXT NAME
    grep -F -q -- "$2" "$1" && check 1 "$3: says '$2'" || check 0 "$3: says '$2'"
}

json_get() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])' "$1" "$2" \
        2>/dev/null || echo "<no JSON>"
}
