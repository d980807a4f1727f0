#!/bin/sh
# Coverage-guided fuzzing of every reader, one target after another:
#
#   scripts/fuzz.sh [SECONDS]        # each target SECONDS (default 300)
#   scripts/fuzz.sh 600 csr stack    # only those targets
#
# Targets (tests/fuzz): mm (Matrix Market, dense), npy (.npy), csr (Matrix
# Market coordinate -> CSR), stack (3-D .npy stacks). Builds with clang's
# libFuzzer through tests/fuzz/build-and-run.sh (LS_FUZZ_BUILD, default
# build-fuzz/); crashes, leaks and timeouts land in
# $LS_FUZZ_BUILD/artifacts-<target>/. Exit status: the number of targets
# that left an artifact.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
secs=${1:-300}
[ $# -gt 0 ] && shift
targets=${*:-mm npy csr stack}
build=${LS_FUZZ_BUILD:-$root/build-fuzz}
export LS_FUZZ_BUILD=$build
sh "$root/tests/fuzz/build-and-run.sh" build
bad=0
for t in $targets; do
    echo "== fuzz_$t, $secs s"
    sh "$root/tests/fuzz/build-and-run.sh" run "$t" "$secs" 2>&1 | grep -E "^(stat::|#[0-9]+ +DONE|==[0-9]+==ERROR|SUMMARY)" || true
    if [ -n "$(ls -A "$build/artifacts-$t" 2>/dev/null)" ]; then
        echo "fuzz_$t: artifacts in $build/artifacts-$t"
        bad=$((bad + 1))
    fi
done
exit "$bad"
