#!/usr/bin/env bash
# The folders' include rules (docs/architecture.md, under the folder map),
# read from the #include lines and the LS_REAL_IMPL paths that
# common/instantiate_real.h includes:
#  1. src/core includes nothing of a backend: src/cpu, src/cuda,
#     src/opencl, or the GPU plugins' old shared folder src/gpu;
#  2. src/cuda includes no CPU header (shared machinery lives in
#     src/common, generic algorithms in src/algo);
#  3. src/algo includes nothing of a GPU backend (src/cuda, src/opencl);
#  4. src/cuda and src/core name their own headers from src/
#     ("cuda/lu/k_lu.h", "core/plan/plan.h"), never by a bare name or a ../
#     path: neither folder is on the include path, and a bare name that
#     resolves beside its includer breaks when either moves.
#  5. tools/ (the linsolve tool, its bench) reaches the library through
#     linsolve.h and the tool-facing headers (core/tool_api.h, core/perf/,
#     ...), never the backend interface core/backend.h or a backend's own
#     headers: a context's measurement table comes from ls_perf_table.
# Rules 1 and 4 read every subfolder (src/core/plan, src/core/api, ...).
# Usage: layering.sh SOURCE_DIR
set -u
src=$1/src
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

# An include of folder F (of src/) names it first, after any ../: "cpu/x.h",
# "../cpu/x.h", "../../cpu/x.h".
pattern() { echo "^[[:space:]]*#[[:space:]]*(include|define[[:space:]]+LS_REAL_IMPL)[[:space:]]*[\"<](\\.\\./)*($1)/"; }

# The pattern must catch what it is for, or every check below passes vacuously.
self_test() {
    printf '#include "cpu/cpu.h"\n' | grep -Eq "$(pattern 'cpu')" || fail "pattern misses \"cpu/...\""
    printf '  #  include "../../cuda/k.h"\n' | grep -Eq "$(pattern 'cuda')" || fail "pattern misses \"../../cuda/...\""
    printf '#define LS_REAL_IMPL "cpu/getrf_impl.h"\n' | grep -Eq "$(pattern 'cpu')" ||
        fail "pattern misses LS_REAL_IMPL paths"
    printf '#include "algo/gpu/gpu_driver.h"\n' | grep -Eq "$(pattern 'gpu')" &&
        fail "pattern takes algo/gpu/ for gpu/"
}
self_test

# check DIR FOLDERS WHY: no file under src/DIR includes src/<one of FOLDERS>.
check() {
    local dir=$src/$1 folders=$2 why=$3
    local files
    files=$(find "$dir" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
    if [ -z "$files" ]; then
        fail "no sources found under $dir"
        return
    fi
    local hits
    # shellcheck disable=SC2086
    hits=$(grep -EHn "$(pattern "$folders")" $files)
    if [ -n "$hits" ]; then
        echo "$hits" | sed "s|^$1/||; s|^$src/||"
        fail "src/$1 includes from src/{${folders//|/,}}: $why"
        return
    fi
    echo "src/$1: $(echo "$files" | wc -l) files, none includes src/{${folders//|/,}}"
}

check core 'cpu|cuda|opencl|gpu' "core depends on no backend (declare what it calls of the CPU in a core header, e.g. core/reference.h)"
check cuda 'cpu' "CUDA code takes shared machinery from src/common and algorithms from src/algo"
check algo 'cuda|opencl' "a generic algorithm talks to a GPU backend only through its table of operations"

# 4. A quoted include in src/DIR that is a ../ path, or a bare name of a
# file that lives under src/DIR.
own_names() {
    local dir=$1 hits name line
    hits=$(grep -rEHn --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' \
        '^[[:space:]]*#[[:space:]]*(include|define[[:space:]]+LS_REAL_IMPL)[[:space:]]*"' "$src/$dir")
    local bad=0 count=0
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        count=$((count + 1))
        name=$(sed -E 's/^[^"]*"([^"]*)".*/\1/' <<< "$line")
        if [[ $name == ../* ]] || { [[ $name != */* ]] && [ -n "$(find "$src/$dir" -name "$name" -print -quit)" ]; }; then
            echo "${line#"$src/"}"
            bad=$((bad + 1))
        fi
    done <<< "$hits"
    if [ "$count" -eq 0 ]; then
        fail "no quoted includes found under $src/$dir"
    elif [ "$bad" -gt 0 ]; then
        fail "src/$dir includes its own headers by a bare or ../ path: name them from src/ (\"$dir/...\")"
    else
        echo "src/$dir: $count quoted includes, each of its headers named from src/"
    fi
}
own_names cuda
own_names core

# 5. the tools
tools=$1/tools
hits=$(grep -rEHn --include='*.c' --include='*.h' \
    '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(core/backend\.h|(\.\./)*(cpu|cuda|opencl|gpu)/)' "$tools")
ntools=$(find "$tools" -name '*.c' -o -name '*.h' | wc -l)
if [ "$ntools" -eq 0 ]; then
    fail "no sources found under tools/"
elif [ -n "$hits" ]; then
    echo "$hits" | sed "s|^$1/||"
    fail "tools/ includes the backend interface or a backend's header: use linsolve.h, core/tool_api.h and core/perf/ (ls_perf_table)"
else
    echo "tools/: $ntools files, none includes core/backend.h or a backend's header"
fi

echo "$failures failure(s)"
exit $((failures > 0))
