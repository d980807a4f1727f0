# Finds OpenBLAS (BLAS + LAPACK) and LAPACKE. Sets LS_HAVE_LAPACKE and the
# imported target ls_lapack. The `lapack` method needs both; without them
# the library still builds and says so when that method is asked for.
find_path(LS_LAPACKE_INCLUDE_DIR lapacke.h PATH_SUFFIXES openblas)
find_library(LS_LAPACKE_LIB NAMES lapacke)
find_library(LS_OPENBLAS_LIB NAMES openblas)
if(LS_LAPACKE_INCLUDE_DIR AND LS_OPENBLAS_LIB)
  add_library(ls_lapack INTERFACE)
  target_include_directories(ls_lapack INTERFACE ${LS_LAPACKE_INCLUDE_DIR})
  # The `lapack` method calls LAPACK through dlsym on liblinsolve's own
  # dependencies (src/cpu/lapack_sym.c), out of reach of a preloaded
  # liblinsolve_lapack.so; no symbol is referenced at link time, so keep
  # the libraries as dependencies where the toolchain links --as-needed.
  target_link_libraries(ls_lapack INTERFACE "-Wl,--push-state,--no-as-needed")
  if(LS_LAPACKE_LIB)
    target_link_libraries(ls_lapack INTERFACE ${LS_LAPACKE_LIB})
  endif()
  target_link_libraries(ls_lapack INTERFACE ${LS_OPENBLAS_LIB} "-Wl,--pop-state")
  set(LS_HAVE_LAPACKE ON)
else()
  set(LS_HAVE_LAPACKE OFF)
  message(WARNING "LAPACKE/OpenBLAS not found: the `lapack` method will be unavailable "
                  "(Debian: apt-get install liblapacke-dev libopenblas-dev)")
endif()
