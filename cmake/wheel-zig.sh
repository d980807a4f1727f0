# Sourced by scripts/build-wheel.sh when LS_WHEEL_TOOLCHAIN=zig: the pieces
# of a manylinux_2_28 wheel built on a newer glibc, every one from PyPI
# (but the machine's CUDA toolkit and GCC for the CUDA plugin, and its
# OpenCL headers and loader to link the OpenCL plugin against, see below).
#
#   ziglang           `zig cc -target x86_64-linux-gnu.2.28`: clang with
#                     glibc 2.28's headers and link stubs, so every glibc
#                     symbol binds to a version that glibc 2.28 has (stat is
#                     __xstat@2.2.5 there, dlopen and pthread_* come from
#                     libdl.so.2 / libpthread.so.0), whatever glibc runs zig.
#   scipy-openblas32  OpenBLAS as NumPy and SciPy ship it (manylinux2014, its
#                     gfortran runtime linked in): BLAS and LAPACK, LP64.
#   cmeel-libomp      LLVM's OpenMP runtime (libomp, built in the
#                     manylinux_2_28 image): clang's OpenMP code calls
#                     __kmpc_*, which GCC's libgomp does not provide.
#
# scipy-openblas exports its symbols with a scipy_ prefix (scipy_dgetrf_),
# so that it never clashes with another BLAS in the process; liblinsolve
# finds LAPACK by its plain names in its own dependency tree
# (src/cpu/lapack_sym.c). libls_openblas_names.so gives every prefixed
# function its plain name too, as a jump to the prefixed one (any signature,
# Fortran's hidden lengths included), and stands where Debian's liblapacke
# stands in the default build, so that it comes first in that tree.
#
# Left out, and why (the package's show_config() says what it has):
#   UMFPACK  Debian's needs glibc 2.29 (exp/log/pow) and SuiteSparse is on
#            PyPI only inside other packages' wheels: the sparse direct
#            method reports "unsupported: built without UMFPACK"; the sparse
#            iterative methods (CG, BiCGSTAB, GMRES) are all there.
#   MPI      liblinsolve_dist is never part of the wheel.
#   the OpenCL ICD loader (libOpenCL.so.1): not grafted (scripts/build-wheel.sh
#            excludes it, as it does the CUDA libraries). Whoever has an
#            OpenCL device has a loader, from the system (ocl-icd, Khronos's)
#            or the GPU driver, and it must be that one, which reads the
#            system's /etc/OpenCL/vendors; Debian's, the one at hand, needs
#            glibc 2.34 (dlopen), and none is on PyPI. Without a loader the
#            package imports and solves on the CPU, and show_config() gives
#            the plugin's dlopen error ("libOpenCL.so.1: cannot open shared
#            object file").
#
# The OpenCL plugin (when the Khronos headers and a loader are found, or
# LS_WITH_OPENCL=ON; OFF leaves it out) is compiled and linked by zig like
# the rest: the headers are the machine's CL/ folder (Debian's
# opencl-headers; LS_OPENCL_HEADERS names the folder that holds CL/, default
# /usr/include), reached through a folder of its own so that the rest of
# /usr/include stays unsearched; the link is against the machine's
# libOpenCL.so.1 (LS_OPENCL_LOADER, default the one ldconfig knows), which
# gives the plugin its DT_NEEDED and binds its cl* calls to the loader's
# OPENCL_1.0..1.2 symbol versions (Khronos's loader and ocl-icd both define
# them); the loader's own glibc needs do not reach the plugin.
#
# The CUDA plugin (when nvcc is found, or LS_WITH_CUDA=ON; LS_WITH_CUDA=OFF
# leaves it out) is compiled by nvcc with its usual host compiler, GCC and
# the system's headers, and LINKED by zig (cmake/wheel-zig-cuda.cmake, as
# CMAKE_USER_MAKE_RULES_OVERRIDE_CUDA): glibc symbol versions are bound when
# a shared object is linked, against zig's glibc 2.28 stubs here, and the
# static CUDA runtime was built on an old glibc. nvcc 13.0 will not take zig
# itself as its host compiler: zig's clang is newer than it accepts
# (-allow-unsupported-compiler passes that), CUDA's headers refuse libc++
# (zig c++'s library) on x86, and with GCC's libstdc++ headers instead, zig's
# glibc headers declare glibc 2.42's rsqrt/rsqrtf whatever the target version
# (with _GNU_SOURCE, which C++ sets), which clash with CUDA's own. The
# plugin's cuBLAS, cuSOLVER and cuSPARSE come from NVIDIA's wheels, as in the
# system toolchain's wheel (scripts/build-wheel.sh).

# Prints nothing; fills the array zig_cfg (pip --config-settings for
# CMake) and zig_libpath (where auditwheel finds the grafted libraries).
#   $1 the work folder   $2 the tools venv's python
ls_zig_prepare() {
  local work=$1 tpy=$2 z root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  z=$work/zig
  rm -rf "$z"
  mkdir -p "$z/pyinc"
  local ob_dir ob_inc omp
  ob_dir=$("$tpy" -c 'import scipy_openblas32 as s; print(s.get_lib_dir())')
  ob_inc=$("$tpy" -c 'import scipy_openblas32 as s; print(s.get_include_dir())')
  omp=$("$tpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/cmeel.prefix
  [ -f "$omp/lib/libomp.so" ] && [ -f "$omp/include/omp.h" ] || {
    echo "build-wheel: no libomp.so / omp.h under $omp (cmeel-libomp)"; return 1; }

  # The compiler: one file, as CMake wants CMAKE_C_COMPILER. zig's linker
  # rejects --push-state/--pop-state (cmake/FindLapackeOpenBLAS.cmake wraps
  # the LAPACK libraries in them, to keep them as dependencies though no
  # symbol of theirs is referenced): it links --as-needed unless told, so
  # the pair becomes --no-as-needed ... --as-needed.
  cat >"$z/cc" <<EOF
#!/bin/sh
for a; do
  shift
  case \$a in
    -Wl,--push-state,--no-as-needed) set -- "\$@" -Wl,--no-as-needed ;;
    -Wl,--pop-state) set -- "\$@" -Wl,--as-needed ;;
    *) set -- "\$@" "\$a" ;;
  esac
done
exec "$tpy" -m ziglang cc -target x86_64-linux-gnu.2.28 "\$@"
EOF
  chmod +x "$z/cc"

  # Plain names for scipy-openblas's functions (see above). Names it also
  # exports unprefixed (a few LAPACK 3.12 helpers) are left alone.
  nm -D --defined-only "$ob_dir/libscipy_openblas.so" | awk '
    $2 == "T" { t[$3] = 1 }
    END {
      print ".text"
      for (s in t) if (s ~ /^scipy_/) {
        n = substr(s, 7)
        if (n in t) continue
        printf ".globl %s\n.type %s,@function\n%s: jmp %s@PLT\n", n, n, n, s
      }
      print ".section .note.GNU-stack,\"\",@progbits"
    }' >"$z/openblas_names.S"
  "$z/cc" -shared -fPIC -s -o "$z/libls_openblas_names.so" "$z/openblas_names.S" \
    -Wl,-soname,libls_openblas_names.so -L"$ob_dir" -lscipy_openblas || return 1

  # Debian's Python.h reaches its pyconfig.h as <x86_64-linux-gnu/python3.X/
  # pyconfig.h>, i.e. through /usr/include, which must not be searched (glibc
  # 2.36's headers live there): this folder offers that one path alone.
  local ma pyinc
  ma=$("$tpy" -c 'import sysconfig; print(sysconfig.get_config_var("MULTIARCH") or "")')
  pyinc=$("$tpy" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  if [ -n "$ma" ] && [ -d "/usr/include/$ma/$(basename "$pyinc")" ]; then
    mkdir -p "$z/pyinc/$ma"
    ln -s "/usr/include/$ma/$(basename "$pyinc")" "$z/pyinc/$ma/"
  fi

  zig_cfg=(--config-settings=cmake.define.CMAKE_C_COMPILER="$z/cc"
           --config-settings="cmake.define.CMAKE_C_FLAGS=${CFLAGS:-} -isystem $z/pyinc"
           --config-settings="cmake.define.OpenMP_C_FLAGS=-fopenmp -isystem $omp/include"
           --config-settings=cmake.define.OpenMP_C_LIB_NAMES=omp
           --config-settings=cmake.define.OpenMP_omp_LIBRARY="$omp/lib/libomp.so"
           --config-settings=cmake.define.LS_LAPACKE_INCLUDE_DIR="$ob_inc"
           --config-settings=cmake.define.LS_LAPACKE_LIB="$z/libls_openblas_names.so"
           --config-settings=cmake.define.LS_OPENBLAS_LIB="$ob_dir/libscipy_openblas.so"
           --config-settings=cmake.define.LS_WITH_UMFPACK=OFF
           --config-settings=cmake.define.LS_WITH_MPI=OFF
           --config-settings=cmake.define.CMAKE_USER_MAKE_RULES_OVERRIDE_CUDA="$root/cmake/wheel-zig-cuda.cmake")
  if [ -n "${LS_WITH_CUDA:-}" ]; then
    zig_cfg+=(--config-settings=cmake.define.LS_WITH_CUDA="$LS_WITH_CUDA")
  fi
  ls_zig_opencl "$z" || return 1
  zig_libpath=$z:$ob_dir:$omp/lib
}

# Adds the OpenCL plugin's settings to zig_cfg (see above): LS_WITH_OPENCL
# unset builds it when the headers and a loader are found, ON requires them.
#   $1 the zig folder
ls_zig_opencl() {
  local z=$1 want=${LS_WITH_OPENCL:-} hdr=${LS_OPENCL_HEADERS:-/usr/include} \
        loader=${LS_OPENCL_LOADER:-} why=
  if [ "$want" = OFF ]; then
    zig_cfg+=(--config-settings=cmake.define.LS_WITH_OPENCL=OFF)
    return 0
  fi
  if [ -z "$loader" ]; then
    loader=$(/sbin/ldconfig -p 2>/dev/null | awk '$1 == "libOpenCL.so.1" && /x86-64/ { print $NF; exit }')
  fi
  if [ ! -f "$hdr/CL/cl.h" ]; then
    why="no $hdr/CL/cl.h (Debian: opencl-headers; LS_OPENCL_HEADERS)"
  elif [ -z "$loader" ] || [ ! -f "$loader" ]; then
    why="no libOpenCL.so.1 to link (Debian: ocl-icd-libopencl1; LS_OPENCL_LOADER)"
  fi
  if [ -n "$why" ]; then
    if [ "$want" = ON ]; then
      echo "build-wheel: LS_WITH_OPENCL=ON: $why"; return 1
    fi
    echo "build-wheel: no OpenCL plugin: $why"
    zig_cfg+=(--config-settings=cmake.define.LS_WITH_OPENCL=OFF)
    return 0
  fi
  mkdir -p "$z/clinc"
  ln -sfn "$(cd "$hdr/CL" && pwd)" "$z/clinc/CL"
  zig_cfg+=(--config-settings=cmake.define.LS_WITH_OPENCL=ON
            --config-settings=cmake.define.OpenCL_INCLUDE_DIR="$z/clinc"
            --config-settings=cmake.define.OpenCL_LIBRARY="$loader")
}
