#!/bin/sh
# Build the reader fuzz targets with clang's libFuzzer and run one of them.
#
#   tests/fuzz/build-and-run.sh build            # every target into $LS_FUZZ_BUILD
#   tests/fuzz/build-and-run.sh run mm 600       # fuzz_mm for 600 s
#   tests/fuzz/build-and-run.sh run npy 600      # also: csr (coordinate -> CSR), stack (3-D .npy)
#
# The reader sources are compiled straight into each target, so no CMake
# build is needed and CI (gcc) is untouched. A run starts from the committed
# corpus (tests/fuzz/corpus/<target>) plus, for mm, the small files of
# $LS_MATRICES_DIR/real and bad; new inputs go to $LS_FUZZ_BUILD/corpus-<target>,
# crashes, leaks and timeouts to $LS_FUZZ_BUILD/artifacts-<target>/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${LS_FUZZ_BUILD:-$root/build-fuzz}
matrices=${LS_MATRICES_DIR:-$root/../shared/matrices}
cc=${CC_FUZZ:-clang}
flags="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1 -std=c11"
defs="-D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE"
targets="mm npy csr stack"

build() {
    mkdir -p "$build"
    # not "t": run() calls build() and then uses its own $t (sh has no locals)
    for bt in $targets; do
        # shellcheck disable=SC2086
        $cc $flags $defs -I"$root/include" -I"$root/src" -o "$build/fuzz_$bt" \
            "$here/fuzz_$bt.c" "$root"/src/io/*.c "$root/src/core/util.c" \
            "$root/src/core/status.c" "$root/src/core/knobs.c" -lm
    done
    echo "built $(for bt in $targets; do printf '%s ' "$build/fuzz_$bt"; done)"
}

run() {
    t=$1
    secs=${2:-600}
    [ -x "$build/fuzz_$t" ] || build
    work="$build/corpus-$t"
    art="$build/artifacts-$t"
    mkdir -p "$work" "$art"
    seeds="$here/corpus/$t"
    # the CSR reader parses Matrix Market, the stack reader .npy
    dict=$t
    case $t in csr) dict=mm ;; stack) dict=npy ;; esac
    if { [ "$t" = mm ] || [ "$t" = csr ]; } && [ -d "$matrices/real" ]; then
        mkdir -p "$build/seeds-mm"
        # small files only: libFuzzer mutates best below a few tens of KB
        find "$matrices/real" "$matrices/bad" -type f -size -40k -exec cp {} "$build/seeds-mm/" \;
        seeds="$seeds $build/seeds-mm"
    fi
    # shellcheck disable=SC2086
    "$build/fuzz_$t" "$work" $seeds -max_total_time="$secs" -rss_limit_mb=2048 \
        -timeout=10 -print_final_stats=1 -dict="$here/$dict.dict" \
        -artifact_prefix="$art/"
}

case "${1:-}" in
build) build ;;
run) shift; run "$@" ;;
*) echo "usage: $0 build | run mm|npy|csr|stack [seconds]" >&2; exit 2 ;;
esac
