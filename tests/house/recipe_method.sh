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
    # the recipe's other places: the help's list, the backend's declaration
    # (read whole: grep -q closing the pipe early would fail it under pipefail)
    out=$("$cli" solve --help 2>&1) || true
    grep -q 'house-lu' <<<"$out" || fail "solve --help does not list house-lu"
    out=$("$cli" info 2>&1) || true
    grep -q '^  methods: .*house-lu' <<<"$out" || fail "linsolve info (cpu) does not list house-lu: $out"
    # the test edits: every CPU method's sweep and the singular agreement
    # now include house-lu
    local t
    for t in test_cpu_solve test_cpu_lapack; do
        "$build/bin/$t" >"$tmp/$t.log" 2>&1 || { tail -20 "$tmp/$t.log"; fail "$t in the patched tree"; }
    done
    if [ "$failures" -eq "$before" ]; then
        echo "house-lu solves through the CLI (double, single), is listed by solve --help and" \
            "info; test_cpu_solve and test_cpu_lapack pass with it"
    fi
}
