# Optional SuiteSparse UMFPACK (Debian: libsuitesparse-dev) for the sparse
# direct solver, src/cpu/direct_csr.c. Without it ls_csr_solve_direct says
# "unsupported: built without UMFPACK".
option(LS_WITH_UMFPACK "Use SuiteSparse UMFPACK for sparse direct solves when found" ON)
set(LS_HAVE_UMFPACK OFF)
if(LS_WITH_UMFPACK)
  find_path(LS_UMFPACK_INCLUDE_DIR umfpack.h PATH_SUFFIXES suitesparse)
  find_library(LS_UMFPACK_LIBRARY umfpack)
  if(LS_UMFPACK_INCLUDE_DIR AND LS_UMFPACK_LIBRARY)
    set(LS_HAVE_UMFPACK ON)
    target_include_directories(linsolve SYSTEM PRIVATE ${LS_UMFPACK_INCLUDE_DIR})
    target_link_libraries(linsolve PRIVATE ${LS_UMFPACK_LIBRARY})
    target_compile_definitions(linsolve PRIVATE LS_HAVE_UMFPACK=1)
  endif()
endif()
message(STATUS "linsolve: UMFPACK=${LS_HAVE_UMFPACK} ${LS_UMFPACK_LIBRARY}")
