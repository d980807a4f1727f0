# Install: versioned shared library, header, CLI, plugins, pkg-config file and
# a CMake package exporting linsolve::linsolve.
include(CMakePackageConfigHelpers)
install(TARGETS linsolve EXPORT linsolveTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT linsolveTargets NAMESPACE linsolve:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/linsolve)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/linsolveConfig.cmake.in
  ${CMAKE_BINARY_DIR}/linsolveConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/linsolve)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/linsolveConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/linsolveConfig.cmake ${CMAKE_BINARY_DIR}/linsolveConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/linsolve)
configure_file(${PROJECT_SOURCE_DIR}/cmake/linsolve.pc.in ${CMAKE_BINARY_DIR}/linsolve.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/linsolve.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
