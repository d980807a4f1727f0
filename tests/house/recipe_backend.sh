# Sourced by recipe.sh for KIND = backend: what to build in the patched tree
# and how to tell that relay is a backend like the others there.
targets=(linsolve_cli linsolve_relay test_conformance)

run_checks() {
    local cli=$build/bin/linsolve out before=$failures
    "$cli" gen random -n 40 --seed 7 -o "$tmp/a.mtx" || fail "linsolve gen"
    # exit 0, the backend named in the report (the CLI holds the answer to
    # the scaled residual <= 30 and exits 4 otherwise), in both precisions
    local p
    for p in double single; do
        if out=$("$cli" solve --backend relay --precision $p "$tmp/a.mtx" 2>&1); then
            grep -q '^  backend  *relay ' <<<"$out" || fail "solve's report does not name relay: $out"
        else
            fail "linsolve solve --backend relay --precision $p exited $?: $out"
        fi
    done
    # (read whole: grep -q closing the pipe early would fail it under pipefail)
    out=$("$cli" solve --help 2>&1) || true
    grep -q 'cpu | cuda | opencl | relay' <<<"$out" || fail "solve --help does not list relay"
    out=$("$cli" info 2>&1) || true
    grep -q '^\[relay\]' <<<"$out" || fail "linsolve info does not list relay: $out"
    # the test edits: the conformance entry and the backend's own test folder
    # are registered and pass (the conformance run must have cases to pass)
    out=$(cd "$build" && ctest -R '^(conformance_relay|relay_solve)$' -V 2>&1) ||
        fail "ctest conformance_relay relay_solve in the patched tree: $(tail -20 <<<"$out")"
    grep -q '100% tests passed, 0 tests failed out of 2' <<<"$out" ||
        fail "the patched tree does not register conformance_relay and relay_solve"
    grep -Eq '^[^ ]*[0-9]+: [1-9][0-9]* case\(s\), 0 skipped, 0 failure\(s\)' <<<"$out" ||
        fail "conformance_relay ran no case: $(grep 'case(s)' <<<"$out")"
    # python/csrc/info.c reports every kind up to LS_BACKEND_COUNT_; it is
    # compiled by the Python package only: a syntax check here where the
    # Python headers are
    local pyinc
    pyinc=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null) || true
    if [ -n "$pyinc" ] && [ -f "$pyinc/Python.h" ]; then
        cc -std=c11 -fsyntax-only -Wall -Wextra -Werror -Wno-unused-parameter -I "$src/include" \
            -I "$src/python/csrc" -I "$pyinc" "$src/python/csrc/info.c" ||
            fail "python/csrc/info.c of the patched tree does not compile"
    else
        echo "note: no Python.h: python/csrc/info.c not compiled"
    fi
    if [ "$failures" -eq "$before" ]; then
        echo "relay solves through the CLI (double, single), is listed by solve --help and info;" \
            "conformance_relay and relay_solve pass"
    fi
}
