# Instrumented builds: VOXHASH_SANITIZE takes a -fsanitize= list ("address,undefined" or "thread",
# the asan and tsan presets) for every C++ target; VOXHASH_FUZZ adds libFuzzer coverage to them and
# builds the fuzz targets in tests/fuzz (clang only; tools/fuzz.sh configures it). Host code only.
set(VOXHASH_SANITIZE "" CACHE STRING "Instrument the C++ code: -fsanitize= list, e.g. address,undefined or thread")
option(VOXHASH_FUZZ "Build the libFuzzer targets in tests/fuzz (clang; with -fsanitize=fuzzer-no-link everywhere)" OFF)

set(voxhash_sanitize_flags "")
if(VOXHASH_SANITIZE)
  if(VOXHASH_HAS_CUDA)
    message(FATAL_ERROR "VOXHASH_SANITIZE instruments host code only: configure with -DVOXHASH_CUDA=OFF "
                        "(compute-sanitizer checks the CUDA code: tools/device_run.sh sanitize)")
  endif()
  # Undefined behaviour aborts (a failed test), it does not just print.
  list(APPEND voxhash_sanitize_flags -fsanitize=${VOXHASH_SANITIZE} -fno-sanitize-recover=all
       -fno-omit-frame-pointer)
  if(VOXHASH_SANITIZE MATCHES "undefined" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND voxhash_sanitize_flags -fsanitize=float-cast-overflow)  # part of clang's "undefined"
  endif()
endif()
if(VOXHASH_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "VOXHASH_FUZZ needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++")
  endif()
  list(APPEND voxhash_sanitize_flags -fsanitize=fuzzer-no-link)
endif()
if(voxhash_sanitize_flags)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${voxhash_sanitize_flags}>")
  add_link_options(${voxhash_sanitize_flags})
  message(STATUS "voxhash: instrumented build (${voxhash_sanitize_flags})")
endif()
