# GLAD 2 loader for OpenGL 4.5 core, generated at build time by the system's glad
# (python3-glad) with --reproducible, which uses the specs packaged with glad (no network).
# Defines the static library voxhash_glad (include <glad/gl.h>).
enable_language(C)
find_program(VOXHASH_GLAD_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT VOXHASH_GLAD_PYTHON)
  find_program(VOXHASH_GLAD_PYTHON python3 REQUIRED)
endif()
execute_process(COMMAND ${VOXHASH_GLAD_PYTHON} -c "import glad"
                RESULT_VARIABLE voxhash_glad_missing OUTPUT_QUIET ERROR_QUIET)
if(voxhash_glad_missing)
  message(FATAL_ERROR "the viewer needs GLAD 2 for ${VOXHASH_GLAD_PYTHON} "
                      "(Debian package python3-glad)")
endif()

set(voxhash_glad_dir ${CMAKE_BINARY_DIR}/glad)
add_custom_command(
  OUTPUT ${voxhash_glad_dir}/src/gl.c ${voxhash_glad_dir}/include/glad/gl.h
         ${voxhash_glad_dir}/include/KHR/khrplatform.h
  COMMAND ${VOXHASH_GLAD_PYTHON} -m glad --quiet --reproducible --api gl:core=4.5
          --extensions= --out-path ${voxhash_glad_dir} c
  COMMENT "Generating the GLAD 2 OpenGL 4.5 core loader"
  VERBATIM)
add_library(voxhash_glad STATIC ${voxhash_glad_dir}/src/gl.c)
target_include_directories(voxhash_glad SYSTEM PUBLIC ${voxhash_glad_dir}/include)
set_target_properties(voxhash_glad PROPERTIES LINKER_LANGUAGE C POSITION_INDEPENDENT_CODE ON)
