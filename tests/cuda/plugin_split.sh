#!/usr/bin/env bash
# The CUDA measurement code is built into its own plugin, never into the
# backend plugin that solves (src/core/perf/perf_plugin.h). From the
# symbol tables, no GPU needed:
#  - liblinsolve_cuda.so exports the backend entry points and not
#    ls_perf_plugin_table, and (where its symbol table is kept) holds none
#    of src/cuda/perf's functions;
#  - liblinsolve_cuda_perf.so exports ls_perf_plugin_table and nothing else.
# Usage: plugin_split.sh NM SOLVE_PLUGIN PERF_PLUGIN
set -u
nm_tool=$1 solve=$2 perf=$3
fails=0
check() { # check OK-STATUS DESCRIPTION
    if [ "$1" = 0 ]; then echo "ok      $2"; else echo "FAILED  $2"; fails=$((fails + 1)); fi
}
exports() { "$nm_tool" -D --defined-only "$1" | awk 'NF == 3 { print $3 }' | sort; }

solve_exports=$(exports "$solve") || { echo "cannot read $solve"; exit 1; }
perf_exports=$(exports "$perf") || { echo "cannot read $perf"; exit 1; }

echo "$solve_exports" | grep -qx ls_plugin_open
check $? "liblinsolve_cuda.so exports ls_plugin_open"
! echo "$solve_exports" | grep -qx ls_perf_plugin_table
check $? "liblinsolve_cuda.so does not export ls_perf_plugin_table"
[ "$perf_exports" = ls_perf_plugin_table ]
check $? "liblinsolve_cuda_perf.so exports ls_perf_plugin_table alone (got: $(echo $perf_exports))"

# The measurement code's own names: lsc_perf_* (cuda/perf/perf.h), the
# matrix generators lsk_gen_* (k_mixed_gen.h) and the entry point.
perf_code='lsc_perf_|lsk_gen_|ls_perf_plugin_table'
perf_syms=$("$nm_tool" "$perf" 2>/dev/null | grep -cE "$perf_code")
[ "$perf_syms" -gt 0 ]
check $? "liblinsolve_cuda_perf.so holds the measurement code ($perf_syms symbols)"
if "$nm_tool" "$solve" 2>/dev/null | grep -q ' lsc_'; then
    leaked=$("$nm_tool" "$solve" | grep -E "$perf_code" | awk '{ print $NF }' | head -5)
    [ -z "$leaked" ]
    check $? "liblinsolve_cuda.so holds no measurement code${leaked:+ (found: $(echo $leaked))}"
else
    echo "note    liblinsolve_cuda.so has no symbol table (stripped): its exports alone checked"
fi
exit $fails
