# Optional SuiteSparse BTF (Debian: libsuitesparse-dev) for the maximum
# transversal, src/cpu/maxtrans_csr.c: Jacobi / ILU(0) on a matrix with a
# structurally zero diagonal iterate on A Q. Without it they refuse it.
option(LS_WITH_BTF "Use SuiteSparse BTF's maximum transversal when found" ON)
set(LS_HAVE_BTF OFF)
if(LS_WITH_BTF)
  find_path(LS_BTF_INCLUDE_DIR btf.h PATH_SUFFIXES suitesparse)
  find_library(LS_BTF_LIBRARY btf)
  if(LS_BTF_INCLUDE_DIR AND LS_BTF_LIBRARY)
    set(LS_HAVE_BTF ON)
    target_include_directories(linsolve SYSTEM PRIVATE ${LS_BTF_INCLUDE_DIR})
    target_link_libraries(linsolve PRIVATE ${LS_BTF_LIBRARY})
    target_compile_definitions(linsolve PRIVATE LS_HAVE_BTF=1)
  endif()
endif()
message(STATUS "linsolve: BTF=${LS_HAVE_BTF} ${LS_BTF_LIBRARY}")
