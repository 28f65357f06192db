# taskmap_module(NAME DIR [PUBLIC deps...] [PRIVATE deps...])
# A static library taskmap_NAME from the .cpp files directly in src/DIR. Its public headers are
# the .h files directly in include/taskmap/DIR. They are exposed through a folder of links of
# the module's own (build/modules/NAME), so a source sees only the headers of the modules it
# links: including a header of an undeclared module fails to build. Declare a module after the
# modules it uses: the install rules take the reverse order as the static link order.
function(taskmap_module name dir)
  cmake_parse_arguments(ARG "" "" "PUBLIC;PRIVATE" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/${dir}/*.cpp)
  file(GLOB headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/taskmap/${dir}/*.h)
  set(exposed ${CMAKE_BINARY_DIR}/modules/${name})
  file(REMOVE_RECURSE ${exposed})
  file(MAKE_DIRECTORY ${exposed}/taskmap/${dir})
  foreach(header ${headers})
    get_filename_component(file ${header} NAME)
    file(CREATE_LINK ${header} ${exposed}/taskmap/${dir}/${file} SYMBOLIC)
  endforeach()
  add_library(taskmap_${name} STATIC ${sources})
  target_include_directories(taskmap_${name}
    PUBLIC $<BUILD_INTERFACE:${exposed}> $<INSTALL_INTERFACE:include>
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/${dir})
  target_link_libraries(taskmap_${name} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE})
  target_compile_features(taskmap_${name} PUBLIC cxx_std_20)
  # Installed and exported as taskmap::NAME (taskmap-targets export set).
  set_target_properties(taskmap_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON EXPORT_NAME ${name})
  set_property(GLOBAL APPEND PROPERTY TASKMAP_MODULES taskmap_${name})
  install(FILES ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/taskmap/${dir})
endfunction()
