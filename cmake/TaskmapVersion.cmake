# The version `taskmap --version` prints: project()'s, plus `git describe --always --dirty`
# when the sources are a git checkout with git installed. Computed at configure time into
# build/generated/taskmap_version.h, which only src/cli/version.cpp includes; the file is
# rewritten only when its text changes. A commit (HEAD or the branch moving) re-runs the
# configure step, so the description follows it; uncommitted edits show after a reconfigure.
set(TASKMAP_GIT_DESCRIBE "")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    OUTPUT_VARIABLE TASKMAP_GIT_DESCRIBE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE git_result)
  if(git_result EQUAL 0)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --symbolic-full-name HEAD
      WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} OUTPUT_VARIABLE branch OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    foreach(ref HEAD ${branch})
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path ${ref}
        WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} OUTPUT_VARIABLE ref_file OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(ref_file AND EXISTS ${ref_file})
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ref_file})
      endif()
    endforeach()
  else()
    set(TASKMAP_GIT_DESCRIBE "")
  endif()
endif()
if(TASKMAP_GIT_DESCRIBE)
  set(TASKMAP_VERSION_STRING "${PROJECT_VERSION} (git ${TASKMAP_GIT_DESCRIBE})")
else()
  set(TASKMAP_VERSION_STRING "${PROJECT_VERSION}")
endif()
configure_file(cmake/version.h.in ${CMAKE_BINARY_DIR}/generated/taskmap_version.h @ONLY)
