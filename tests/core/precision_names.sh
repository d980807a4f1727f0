#!/usr/bin/env bash
# Every name a precision-generic file defines can be found by grep.
#
# A *_impl.h file is written once over REAL and FN (common/real_macros.h)
# and instantiated for double and float (common/instantiate_real.h), so its
# functions are defined as FN(ls_cpu_getrf) and exist as ls_cpu_getrf_d and
# ls_cpu_getrf_s, names that appear nowhere in the source. Each such file
# therefore lists, in its opening comment, every function of external
# linkage it defines under both names ("Defines: ls_cpu_getrf_d/_s" is not
# enough: write ls_cpu_getrf_d, ls_cpu_getrf_s), and this test fails when a
# definition is missing from its file's list.
# Usage: precision_names.sh SOURCE_DIR
set -u
src=$1/src
failures=0 files=0 names=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

# The names of the functions of external linkage defined on stdin.
defs_of() {
    grep -E '^[A-Za-z_][A-Za-z0-9_ *]*[ *]FN\([A-Za-z0-9_]+\)\(' |
        grep -vE '^(static|typedef)[[:space:]]' |
        sed -nE 's/^[A-Za-z_][A-Za-z0-9_ *]*[ *]FN\(([A-Za-z0-9_]+)\)\(.*/\1/p' | sort -u
}

# The pattern must find a definition, or the test passes vacuously.
probe=$(printf 'int FN(ls_cpu_getrf)(int m, int n)\nstatic int FN(helper)(void)\nconst char *FN(kind)(int n)\n' | defs_of | tr '\n' ' ')
[ "$probe" = "kind ls_cpu_getrf " ] || fail "the definition pattern finds '$probe', not 'kind ls_cpu_getrf '"

while IFS= read -r -d '' f; do
    grep -q 'FN(' "$f" || continue
    files=$((files + 1))
    defs=$(defs_of < "$f")
    for name in $defs; do
        names=$((names + 1))
        for sfx in d s; do
            grep -qw "${name}_$sfx" "$f" ||
                fail "${f#"$1/"} defines FN($name) but does not name ${name}_$sfx"
        done
    done
done < <(find "$src" -name '*_impl.h' -print0)
[ "$files" -gt 0 ] || fail "no *_impl.h files found under $src"
echo "$files precision-generic files, $names functions of external linkage, each named as _d and _s"
echo "$failures failure(s)"
exit $((failures > 0))
