# CMAKE_USER_MAKE_RULES_OVERRIDE_CUDA of scripts/build-wheel.sh's zig
# toolchain (cmake/wheel-zig.sh), which builds the CUDA plugin for a
# manylinux_2_28 wheel on a newer glibc: nvcc compiles the .cu files with its
# usual host compiler (GCC, the system's headers), and the plugin is LINKED
# by the C compiler, `zig cc -target x86_64-linux-gnu.2.28`, instead of that
# host compiler. A glibc symbol's version is chosen when a shared object is
# linked, from the libc the linker reads: zig's glibc 2.28 stubs give every
# reference of the GCC-compiled objects and of the static CUDA runtime
# (libcudart_static.a, built by NVIDIA on an old glibc: __xstat, pthread_*,
# dlopen, shm_open) a version that glibc 2.28 has; stat, a function of its
# own only from glibc 2.33, becomes __xstat@GLIBC_2.2.5 through zig's
# libc_nonshared.a, as with glibc 2.28 itself. A call to a function that
# glibc 2.28 lacks (arc4random: 2.36; __isoc23_strtol, which glibc 2.38's
# headers make of strtol) fails that link, with -z defs, instead of slipping
# through as an unversioned symbol that no policy check sees; the .cu files'
# host code calls only atexit and exit.
#
# GCC's host code for the .cu files also needs the C++ ABI runtime for the
# guards of the static locals in nvcc's kernel launch stubs and for exception
# unwinding (__cxa_guard_*, __gxx_personality_v0: libstdc++; _Unwind_Resume:
# libgcc_s), which zig's driver does not add: the system's libstdc++.so.6 and
# libgcc_s.so.1 are named, as the host compiler's driver names them when it
# links. Those symbols' versions (CXXABI_1.3, GCC_3.0) are older than every
# manylinux policy, and the manylinux policy lets a wheel need both libraries.
# (The launcher that CMake found is nvcc's host compiler, which knows where
# they are.)
#
# Only where C is enabled too: the project, not CMake's own test projects for
# CUDA, whose checks link with the host compiler as usual.
if(NOT CMAKE_C_COMPILER_LOADED)
  return()
endif()
set(_ls_host "${CMAKE_CUDA_HOST_LINK_LAUNCHER}")
set(_ls_runtime "")
foreach(_ls_lib libstdc++.so.6 libgcc_s.so.1)
  execute_process(COMMAND "${_ls_host}" -print-file-name=${_ls_lib}
    OUTPUT_VARIABLE _ls_path OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _ls_rc)
  if(NOT _ls_rc EQUAL 0 OR NOT IS_ABSOLUTE "${_ls_path}" OR NOT EXISTS "${_ls_path}")
    message(FATAL_ERROR "wheel-zig-cuda: '${_ls_host} -print-file-name="
      "${_ls_lib}' finds no ${_ls_lib}")
  endif()
  string(APPEND _ls_runtime " \"${_ls_path}\"")
endforeach()
# -z defs: every symbol is found at link time, so none can escape the check
# of its glibc version by staying unversioned
set(CMAKE_CUDA_STANDARD_LIBRARIES "${_ls_runtime} -Wl,-z,defs")
# CMake's own rule with the C compiler in the host compiler's place. Not by
# setting CMAKE_CUDA_HOST_LINK_LAUNCHER: CMake writes that into the build
# tree's CMakeCUDACompiler.cmake, where the next configure would take zig for
# nvcc's host compiler. CUDA executables (none in a wheel) keep the host
# compiler.
set(CMAKE_CUDA_CREATE_SHARED_LIBRARY "\"${CMAKE_C_COMPILER}\" <CMAKE_SHARED_LIBRARY_CUDA_FLAGS> \
<LINK_FLAGS> <CMAKE_SHARED_LIBRARY_CREATE_CUDA_FLAGS> <SONAME_FLAG><TARGET_SONAME> -o <TARGET> \
<OBJECTS> <LINK_LIBRARIES>${__IMPLICIT_LINKS}")
unset(_ls_runtime)
unset(_ls_host)
unset(_ls_path)
unset(_ls_rc)
