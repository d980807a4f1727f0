#!/bin/bash
# The OpenCL tests of a build on another distribution's PoCL, in a chroot.
#
# PoCL's work-group compiler differs between releases: a kernel that PoCL 3.1
# (Debian 12, what CI runs) builds can abort PoCL 5.0 (Ubuntu 24.04) inside
# clEnqueueNDRangeKernel with "Assertion `region_entry_barrier != NULL'
# failed", which no caller can catch. This builds a minimal root of the
# distribution with its PoCL, mounts the build tree into it and runs the
# build's OpenCL ctests there (their commands, not ctest itself, which the
# chroot lacks). Needs root, debootstrap, mounts and network access to the
# archive; without one of them it says why and exits 77 (a skip, as ctest
# counts it), and 1 when a test failed. scripts/test.sh runs it for noble.
#
#   sudo scripts/opencl-pocl-distro.sh BUILD_DIR [noble|trixie] [OUT_FILE]
#
# noble: Ubuntu 24.04 (PoCL 5.0, LLVM 16); trixie: Debian 13 (PoCL 6.0,
# LLVM 18). The build's own shared libraries come along (copied from the
# host into the root's /opt/hostlibs), so the run tests the kernels against
# that PoCL and nothing else. Tests that need a Python or LAPACK's test
# programs from the host are not run.
set -u
skip() { echo "opencl-pocl-distro: skipped: $*" >&2; exit 77; }
BUILD=$(cd "${1:?usage: $0 BUILD_DIR [noble|trixie] [OUT_FILE]}" && pwd)
SUITE=${2:-noble}
OUTF=${3:-/dev/stdout}
ROOT=/var/tmp/ls-pocl-$SUITE
[ "$(id -u)" = 0 ] || skip "needs root (chroot, mounts)"
command -v debootstrap >/dev/null || skip "no debootstrap"
case $SUITE in
noble) MIRROR=http://archive.ubuntu.com/ubuntu COMP=main,universe
    # bookworm's debootstrap has no noble script; Ubuntu's all share gutsy's
    [ -e /usr/share/debootstrap/scripts/noble ] ||
        ln -s gutsy /usr/share/debootstrap/scripts/noble ;;
trixie) MIRROR=http://deb.debian.org/debian COMP=main ;;
*) echo "unknown suite $SUITE (noble or trixie)" >&2; exit 2 ;;
esac
if [ ! -x "$ROOT/usr/bin/clinfo" ]; then
    timeout 20 wget -q --spider "$MIRROR/dists/$SUITE/Release" || skip "$MIRROR not reachable"
    timeout 900 debootstrap --no-check-gpg --variant=minbase --components=$COMP \
        --include=pocl-opencl-icd,ocl-icd-libopencl1,clinfo "$SUITE" "$ROOT" "$MIRROR" \
        >/var/tmp/ls-pocl-$SUITE.log 2>&1 || skip "debootstrap failed (/var/tmp/ls-pocl-$SUITE.log)"
fi
# the source tree and the test matrices, at their own paths, beside the build
SRC=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt")
# the matrices at the path the tests name and, through a link, where it leads
MATP=$(sed -n 's/^LS_MATRICES_DIR:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
MAT=$(realpath -q -s -m "$MATP")
MATR=$(realpath -q -m "$MATP")
[ "$MATR" = "$MAT" ] && MATR=
BINDS="$SRC $BUILD $MAT $MATR" # mounted in this order (a build inside the source tree after it)
# the build's dependencies as the host has them (liblapacke, OpenBLAS, SuiteSparse)
mkdir -p "$ROOT/opt/hostlibs"
for l in $(ldd "$BUILD"/bin/test_batched "$BUILD"/lib/*.so 2>/dev/null | awk '/=>/ {print $3}' | sort -u |
    grep -v -E "libc\.so|libm\.so|libgcc_s|ld-linux|libstdc|libOpenCL|$BUILD"); do
    cp -L "$l" "$ROOT/opt/hostlibs/"
done
# the tests' commands, environment and working folders, from ctest
(cd "$BUILD" && ctest --show-only=json-v1 -R opencl) | python3 -c '
import json, shlex, sys
for t in json.load(sys.stdin)["tests"]:
    env, wd = "", sys.argv[1]
    for p in t.get("properties", []):
        if p["name"] == "ENVIRONMENT": env = " ".join(shlex.quote(e) for e in p["value"])
        if p["name"] == "WORKING_DIRECTORY": wd = p["value"]
    cmd, name = " ".join(shlex.quote(c) for c in t["command"]), t["name"]
    if "python" in cmd or "lapack_lin" in name or "pocl" in name:
        continue
    print(f"echo \"== {name}\"; cd {wd} && env LD_LIBRARY_PATH=/opt/hostlibs POCL_KERNEL_CACHE=0 {env} "
          f"timeout 900 {cmd} >/tmp/t.log 2>&1; echo \"rc $?\"; tail -1 /tmp/t.log")
' "$BUILD" >"$ROOT/tmp/ocl-tests.sh"
[ -s "$ROOT/tmp/ocl-tests.sh" ] || skip "no OpenCL tests in $BUILD"
cleanup() {
    for m in $(echo $BINDS | tr ' ' '\n' | tac) /dev /sys /proc; do umount "$ROOT$m" 2>/dev/null; done
}
trap cleanup EXIT
mount -t proc proc "$ROOT/proc" && mount --bind /sys "$ROOT/sys" && mount --bind /dev "$ROOT/dev" ||
    skip "cannot mount into $ROOT"
for d in $BINDS; do
    if [ -d "$d" ]; then
        mkdir -p "$ROOT$d" && mount --bind "$d" "$ROOT$d" || skip "cannot mount $d into $ROOT"
    fi
done
chroot "$ROOT" /bin/true || skip "cannot run programs in $ROOT"
chroot "$ROOT" clinfo -l 2>/dev/null | grep -q Device || skip "PoCL in $ROOT lists no device"
LOG=$(mktemp)
{
    echo "# suite: $SUITE; $(chroot "$ROOT" dpkg-query -W -f '${Package} ${Version}\n' pocl-opencl-icd 2>/dev/null)"
    chroot "$ROOT" clinfo -l 2>&1
    chroot "$ROOT" /bin/bash /tmp/ocl-tests.sh 2>&1
} >"$LOG"
cat "$LOG" >"$OUTF"
# a test's rc 77 is a skip
FAILS=$(grep -E '^rc [0-9]+$' "$LOG" | grep -v -x -E 'rc (0|77)' | wc -l)
RAN=$(grep -c '^== ' "$LOG")
rm -f "$LOG"
[ "$RAN" -gt 0 ] && [ "$FAILS" -eq 0 ]
