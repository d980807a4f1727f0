#!/usr/bin/env bash
# liblinsolve_scalapack.so under a plain ScaLAPACK program (scalapack_prog.c):
#   scalapack_dropin.sh MPIEXEC NP P Q PROGRAM DROPIN MODE
# MODE linsolve: preloaded, trace on; every case passes and the trace shows
#   which calls went through linsolve and which to ScaLAPACK (and why).
# MODE system: preloaded with LS_SCALAPACK_BACKEND=system: the same cases
#   pass with every call on ScaLAPACK (so both paths give the same info).
# MODE plain: no preload, ScaLAPACK alone.
# MODE symbols: exactly the six routines are exported.
# MODE installed: DROPIN is the build folder; installed into a temporary
#   prefix, preloaded by the documented command (pkg-config's preload
#   variable), then checked as MODE linsolve.
set -uo pipefail
mpiexec=$1 np=$2 P=$3 Q=$4 prog=$5 lib=$6 mode=$7
if [ "$mode" = installed ]; then
    prefix=$(mktemp -d)
    trap 'rm -rf "$prefix"' EXIT
    cmake --install "$lib" --prefix "$prefix" >/dev/null || { echo "FAILED: cmake --install"; exit 1; }
    export PKG_CONFIG_PATH=$(ls -d "$prefix"/lib*/pkgconfig | head -n1)
    lib=$(pkg-config --variable=preload linsolve-scalapack) || { echo "FAILED: no linsolve-scalapack.pc"; exit 1; }
    echo "preload=$lib"
    deps=$(ldd "$lib")
    grep -qF "liblinsolve_dist.so.0 => $(dirname "$lib")/" <<< "$deps" ||
        { echo "$deps"; echo "FAILED: the installed drop-in does not find the installed liblinsolve_dist"; exit 1; }
    mode=linsolve
fi
if [ "$mode" = symbols ]; then
    got=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWi]$/ { print $3 }' | sort | tr '\n' ' ')
    want="pdgesv_ pdgetrf_ pdgetrs_ psgesv_ psgetrf_ psgetrs_ "
    echo "exported: $got"
    [ "$got" = "$want" ] || { echo "FAILED: expected exactly: $want"; exit 1; }
    exit 0
fi
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
case $mode in
plain) "$mpiexec" -np "$np" --oversubscribe "$prog" "$P" "$Q" >"$out" 2>"$err" ;;
linsolve) "$mpiexec" -np "$np" --oversubscribe env LD_PRELOAD="$lib" LS_SCALAPACK_TRACE=1 \
              "$prog" "$P" "$Q" >"$out" 2>"$err" ;;
system) "$mpiexec" -np "$np" --oversubscribe env LD_PRELOAD="$lib" LS_SCALAPACK_TRACE=1 \
            LS_SCALAPACK_BACKEND=system "$prog" "$P" "$Q" >"$out" 2>"$err" ;;
esac
rc=$?
cat "$out"
grep -v '^liblinsolve_scalapack: p' "$err"   # pxerbla's report and anything unexpected
echo "--- trace"
grep '^liblinsolve_scalapack: p' "$err"
fail=0
[ $rc -eq 0 ] || { echo "FAILED: exit status $rc"; fail=1; }
expect() { # pattern, how many lines
    local n
    n=$(grep -cE "^liblinsolve_scalapack: $1" "$err")
    [ "$n" -eq "$2" ] || { echo "FAILED: $2 trace line(s) matching '$1', got $n"; fail=1; }
}
case $mode in
linsolve)
    expect 'pdgesv_ n=203 nrhs=3 .* path=linsolve .*info=0$' 1
    expect 'psgesv_ n=150 .* path=linsolve .*info=0$' 1
    expect 'pdgetrf_ m=181 n=181 .* path=linsolve .*info=0$' 1
    expect 'pdgetrs_ n=181 nrhs=2 trans=N .* path=linsolve .*info=0$' 1
    expect 'pdgetrs_ n=181 nrhs=2 trans=T .* path=linsolve .*info=0$' 1
    expect 'pdgetrs_ n=181 nrhs=2 trans=C .* path=linsolve .*info=0$' 1
    expect 'psgetrf_ m=97 n=97 .* path=linsolve .*info=0$' 1
    expect 'psgetrs_ n=97 nrhs=3 trans=T .* path=linsolve .*info=0$' 1
    expect 'pdgesv_ n=120 nrhs=2 ia=33 ja=33 .* path=linsolve .*info=0$' 1
    # refused by ScaLAPACK too: its own report (pxerbla) and info
    expect 'pdgesv_ n=120 nrhs=2 ia=8 ja=8 .* path=scalapack reason=unaligned .*info=-4$' 1
    expect 'pdgesv_ n=100 .* path=linsolve .*info=37$' 1
    expect 'pdgesv_ n=-1 .* path=illegal .*info=-1$' 1
    expect 'pdgesv_ n=64 .* path=linsolve .*info=0$' 1
    expect "p.* grid=${P}x${Q} rank=0 " 13  # one line per call, from process (0,0) only
    expect 'pdgetrf_ m=120 ' 0              # ScaLAPACK's inner calls are not intercepted
    ;;
system)
    expect 'p.* path=scalapack reason=backend ' 13
    ;;
esac
exit $fail
