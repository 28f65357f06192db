# Install rules: the taskmap command with its man page and bash completion, the launcher wrapper
# taskmap-gpu-run (each rank on the GPU of a gpu-env file), the module libraries
# with their headers (installed by taskmap_module), the MPI libraries (profiler, reorder, dist),
# the docs, a CMake package (find_package(taskmap) -> taskmap::taskmap) and a pkg-config file
# (taskmap.pc).
include(CMakePackageConfigHelpers)

get_property(TASKMAP_MODULE_TARGETS GLOBAL PROPERTY TASKMAP_MODULES)
set(TASKMAP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/taskmap)

install(TARGETS taskmap RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS scripts/taskmap-gpu-run DESTINATION ${CMAKE_INSTALL_BINDIR})
# Written by the build (CMakeLists.txt); bash-completion loads completions/taskmap on first use.
install(FILES ${TASKMAP_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${TASKMAP_BASH_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(TARGETS ${TASKMAP_MODULE_TARGETS} taskmap_lib EXPORT taskmap-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(mpi ${TASKMAP_MPIS})
  # Loaded with LD_PRELOAD, not linked: outside the export set.
  install(TARGETS taskmap-profile-${mpi} taskmap-reorder-${mpi} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  # Opened by the taskmap binary under an MPI launcher (src/dist/launch.cpp finds it here).
  install(TARGETS taskmap-dist-${mpi} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endforeach()
file(GLOB TASKMAP_DOCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/docs/*.md)
install(FILES ${TASKMAP_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})
# How the mappers work, one page per algorithm (docs/mappers/), linked from the pages above.
file(GLOB TASKMAP_MAPPER_DOCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/docs/mappers/*.md)
install(FILES ${TASKMAP_MAPPER_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR}/mappers)
# The JSON Schema of every JSON output (docs/report.md), beside the docs that refer to it.
install(FILES docs/schema/taskmap-output.schema.json DESTINATION ${CMAKE_INSTALL_DOCDIR}/schema)

install(EXPORT taskmap-targets NAMESPACE taskmap:: DESTINATION ${TASKMAP_CMAKE_DIR})
configure_package_config_file(cmake/taskmap-config.cmake.in ${CMAKE_BINARY_DIR}/taskmap-config.cmake
  INSTALL_DESTINATION ${TASKMAP_CMAKE_DIR})
# 0.x: a minor version may break the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/taskmap-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/taskmap-config.cmake ${CMAKE_BINARY_DIR}/taskmap-config-version.cmake
  cmake/TaskmapLinkDeps.cmake DESTINATION ${TASKMAP_CMAKE_DIR})

# pkg-config: modules in static link order (each before the modules it uses, the reverse of
# their declaration order), the prefix relative to the .pc file so the install relocates.
set(TASKMAP_PC_LIBS "")
foreach(target ${TASKMAP_MODULE_TARGETS})
  set(TASKMAP_PC_LIBS "-l${target} ${TASKMAP_PC_LIBS}")
endforeach()
string(STRIP "${TASKMAP_PC_LIBS}" TASKMAP_PC_LIBS)
file(RELATIVE_PATH TASKMAP_PC_PREFIX_FROM_PCDIR /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" TASKMAP_PC_PREFIX_FROM_PCDIR "${TASKMAP_PC_PREFIX_FROM_PCDIR}")
configure_file(cmake/taskmap.pc.in ${CMAKE_BINARY_DIR}/taskmap.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/taskmap.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
