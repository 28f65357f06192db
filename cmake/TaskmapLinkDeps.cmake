# The libraries taskmap's modules link privately that ship no CMake package: Scotch, METIS
# (Debian libscotch-dev, libmetis-dev) and COIN-OR CBC (coinor-libcbc-dev, through
# pkg-config). Included by CMakeLists.txt and, installed beside it, by taskmap-config.cmake:
# the module libraries are static, so a consumer links these as well. Defines the imported
# targets taskmap_deps::scotch, taskmap_deps::metis and taskmap_deps::cbc; what it cannot
# find it lists in TASKMAP_LINK_DEPS_MISSING.
set(TASKMAP_LINK_DEPS_MISSING "")

find_library(TASKMAP_SCOTCH_LIBRARY scotch)
find_library(TASKMAP_METIS_LIBRARY metis)
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(TASKMAP_CBC QUIET IMPORTED_TARGET cbc)
  pkg_check_modules(TASKMAP_HWLOC QUIET IMPORTED_TARGET hwloc)
  pkg_check_modules(TASKMAP_YAML QUIET IMPORTED_TARGET yaml-cpp)
  pkg_check_modules(TASKMAP_ARCHIVE QUIET IMPORTED_TARGET libarchive)
endif()

foreach(dep scotch metis)
  string(TOUPPER ${dep} DEP)
  if(NOT TASKMAP_${DEP}_LIBRARY)
    list(APPEND TASKMAP_LINK_DEPS_MISSING "${dep} (Debian lib${dep}-dev)")
  elseif(NOT TARGET taskmap_deps::${dep})
    add_library(taskmap_deps::${dep} UNKNOWN IMPORTED)
    set_target_properties(taskmap_deps::${dep} PROPERTIES IMPORTED_LOCATION "${TASKMAP_${DEP}_LIBRARY}")
  endif()
endforeach()

if(NOT TASKMAP_CBC_FOUND)
  list(APPEND TASKMAP_LINK_DEPS_MISSING "cbc through pkg-config (Debian coinor-libcbc-dev, pkgconf)")
elseif(NOT TARGET taskmap_deps::cbc)
  add_library(taskmap_deps::cbc INTERFACE IMPORTED)
  set_target_properties(taskmap_deps::cbc PROPERTIES INTERFACE_LINK_LIBRARIES PkgConfig::TASKMAP_CBC)
endif()

# hwloc (libhwloc-dev) reads node topologies, yaml-cpp (libyaml-cpp-dev) Slurm's topology.yaml,
# libarchive (libarchive-dev) the members of tar files (forwarding tables as sites archive them).
foreach(dep HWLOC YAML ARCHIVE)
  string(TOLOWER ${dep} name)
  if(NOT TASKMAP_${dep}_FOUND)
    list(APPEND TASKMAP_LINK_DEPS_MISSING "${name} through pkg-config (Debian libhwloc-dev, libyaml-cpp-dev, libarchive-dev)")
  elseif(NOT TARGET taskmap_deps::${name})
    add_library(taskmap_deps::${name} INTERFACE IMPORTED)
    set_target_properties(taskmap_deps::${name} PROPERTIES INTERFACE_LINK_LIBRARIES PkgConfig::TASKMAP_${dep})
  endif()
endforeach()
