#!/usr/bin/env bash
# The drop-in as a user gets it: installed beside liblinsolve with its
# pkg-config file, preloaded by the command docs/lapack-dropin.md gives,
# from the install tree alone (it finds liblinsolve through its RPATH).
#     installed.sh BUILD_DIR THREADS_PROGRAM
set -uo pipefail
build=$1 prog=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAILED: cmake --install"; exit 1; }
export PKG_CONFIG_PATH=$(ls -d "$prefix"/lib*/pkgconfig | head -n1)
pkg-config --exists linsolve-lapack || fail "no linsolve-lapack.pc"
libdir=$(pkg-config --variable=libdir linsolve)
echo "libdir=$libdir; linsolve-lapack: $(pkg-config --libs linsolve-lapack)"
[ "$(pkg-config --variable=preload linsolve-lapack)" -ef "$libdir/liblinsolve_lapack.so" ] ||
  fail "linsolve-lapack's preload variable does not name $libdir/liblinsolve_lapack.so"
# ldd's output is captured first: under pipefail, `ldd | grep -q` fails
# whenever grep exits before ldd has written everything (SIGPIPE).
deps=$(ldd "$libdir/liblinsolve_lapack.so")
grep -qF "liblinsolve.so.0 => $libdir/" <<< "$deps" ||
  { echo "$deps"; fail "the installed drop-in does not find the installed liblinsolve"; }

# The documented command, on a program linked to the system LAPACK ...
LD_PRELOAD=$(pkg-config --variable=libdir linsolve)/liblinsolve_lapack.so \
  LS_LAPACK_BACKEND=cpu LS_LAPACK_TRACE=1 "$prog" > "$prefix/out" 2> "$prefix/err" ||
  { cat "$prefix/out"; grep -v '^liblinsolve_lapack: [ds]ge' "$prefix/err" | tail -n 20
    fail "threads program under the installed preload"; }
echo "threads program: $(grep -c 'path=cpu' "$prefix/err") call(s) on path=cpu"
grep -q 'path=cpu' "$prefix/err" || fail "no call intercepted"
# ... and on Debian's NumPy, where present.
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  LD_PRELOAD=$(pkg-config --variable=libdir linsolve)/liblinsolve_lapack.so \
    LS_LAPACK_BACKEND=cpu LS_LAPACK_TRACE=1 \
    /usr/bin/python3 -c 'import numpy; a = numpy.random.rand(300, 300) + 300 * numpy.eye(300); print(abs(a @ numpy.linalg.solve(a, numpy.ones(300)) - 1).max())' \
    2> "$prefix/err" || fail "python3 under the installed preload"
  cat "$prefix/err"
  grep -q 'dgesv_ n=300 nrhs=1 path=cpu' "$prefix/err" || fail "NumPy's dgesv_ not intercepted"
fi
[ "$fails" -eq 0 ] && echo "installed: ok"
exit $((fails > 0))
