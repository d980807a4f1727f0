# Sourced by recipe.sh for KIND = method: what to build in the patched tree
# and how to tell that house-lu is a method like the others there.
targets=(linsolve_cli test_cpu_solve test_cpu_lapack)

run_checks() {
    local cli=$build/bin/linsolve out before=$failures
    "$cli" gen zerodiag -n 40 --seed 7 -o "$tmp/a.mtx" || fail "linsolve gen"
    # exit 0, the method named in the report, the answer checked (the CLI
    # holds it to the scaled residual <= 30 and exits 4 otherwise)
    if out=$("$cli" solve --backend cpu --method house-lu "$tmp/a.mtx" 2>&1); then
        grep -q '^  method  *house-lu ' <<<"$out" ||
            fail "solve's report does not name house-lu: $out"
        grep -q 'solved with house-lu on cpu' <<<"$out" ||
            fail "solve's message does not name house-lu: $out"
    else
        fail "linsolve solve --method house-lu exited $?: $out"
    fi
    "$cli" solve --backend cpu --method house-lu --precision single "$tmp/a.mtx" >/dev/null 2>&1 ||
        fail "linsolve solve --method house-lu --precision single"
    # the places that derive from the method table: the help's list and
    # its byte models (house-lu follows the blocked LU's), the backend's
    # declaration (read whole: grep -q closing the pipe early would fail it
    # under pipefail)
    out=$("$cli" solve --help 2>&1) || true
    grep -q '| house-lu' <<<"$out" || fail "solve --help does not list house-lu"
    grep -Eq '^ +lu-blocked: .*house-lu' <<<"$out" ||
        fail "solve --help does not give house-lu the lu-blocked byte model: $out"
    out=$("$cli" info 2>&1) || true
    grep -q '^  methods: .*house-lu' <<<"$out" || fail "linsolve info (cpu) does not list house-lu: $out"
    # the test edits: every CPU method's sweep and the singular agreement
    # now include house-lu
    local t
    for t in test_cpu_solve test_cpu_lapack; do
        "$build/bin/$t" >"$tmp/$t.log" 2>&1 || { tail -20 "$tmp/$t.log"; fail "$t in the patched tree"; }
    done
    # the CLI's real-matrix group of every CPU direct method, read from the
    # tables at configure time: cli_real_house-lu exists and passes, and the
    # list read agrees with `linsolve info` (cli_real_methods); the byte
    # models of docs/metrics.md still match the help's (core_metrics_models)
    out=$(cd "$build" && ctest -R '^(cli_real_house-lu|cli_real_methods|core_metrics_models)$' 2>&1) ||
        fail "ctest cli_real_house-lu cli_real_methods core_metrics_models in the patched tree: $(tail -20 <<<"$out")"
    grep -q '100% tests passed, 0 tests failed out of 3' <<<"$out" ||
        fail "the patched tree does not register cli_real_house-lu: $(tail -5 <<<"$out")"
    if [ "$failures" -eq "$before" ]; then
        echo "house-lu solves through the CLI (double, single), is listed by solve --help" \
            "(with its byte model) and info; test_cpu_solve, test_cpu_lapack," \
            "cli_real_house-lu, cli_real_methods and core_metrics_models pass with it"
    fi
}
