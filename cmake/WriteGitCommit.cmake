# Run at build time (cmake -P): writes OUT, a header defining VOXHASH_GIT_COMMIT as the checkout's
# short HEAD ("unknown" outside a git checkout), touching it only when the commit changed so
# benchmark reports always name the commit the binary was built from.
execute_process(COMMAND git rev-parse --short HEAD
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE status ERROR_QUIET)
if(NOT status EQUAL 0 OR NOT commit)
  set(commit unknown)
endif()
set(text "// Generated at build time by cmake/WriteGitCommit.cmake.\n#pragma once\n#define VOXHASH_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
