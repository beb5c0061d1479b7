# add_live_test(): registers one program of tests-c/live/ (see the README
# there). Included by tests-c/CMakeLists.txt once rxe_test(), rpma_live and
# RPMA_NOT_YET exist; each folder's CMakeLists.txt under live/ calls it once
# a test:
#
#   add_live_test(NAME <name> [ENV VAR=value...] [WRAP command...] [HELGRIND]
#                 [EMULATED] [MOCK] [INTERPOSES])
#
# NAME        the source <name>.c in the calling folder; the program is
#             live_<name> (in the top of the build tree) and the suite's
#             line is live.<name>: run-diff.sh runs it against our library
#             and against the C one, on rxe0, and compares what it prints.
# ENV         the environment of that run (a long test's bound, say).
# WRAP        a command that runs that run (both libraries' runs), such as
#             scripts/rdma-cgroup.sh with its limit.
# HELGRIND    also run it with ours under valgrind --tool=helgrind, with
#             fewer rounds (live.<name>.helgrind): any report fails.
# EMULATED    also run it with ours alone, with the native operations
#             switched off (RPMA_NATIVE_FLUSH=0, RPMA_NATIVE_ATOMIC_WRITE=0:
#             live.<name>.emulated), where the C library cannot follow.
# MOCK        it carries the link-time mocks of common/rpma_mock.h: its own
#             libibverbs/librdmacm functions, exported from the executable
#             so they serve the library under test too.
# INTERPOSES  it defines libc functions itself (to count calls): they are
#             exported from the executable likewise.

set(RPMA_LIVE_INCLUDE_DIR "${RPMA_TESTS_C_DIR}/live/include")
target_include_directories(rpma_live PUBLIC "${RPMA_LIVE_INCLUDE_DIR}")

# RPMA_LIVE_FILTER (a regular expression on the test's name) narrows the set
# while one works on a few of them.
set(RPMA_LIVE_FILTER "" CACHE STRING "only the live tests whose name matches this")

# The calls (not the man-page references "name(3)") of a source file, and of
# the headers it includes (next to it or in live/include/), to functions in
# RPMA_NOT_YET: the upstream functions our library does not export (yet).
function(rpma_missing_calls src out)
  file(READ ${src} text)
  get_filename_component(dir ${src} DIRECTORY)
  string(REGEX MATCHALL "#include \"[^\"]+\"" includes "${text}")
  foreach(inc ${includes})
    string(REGEX REPLACE "#include \"([^\"]+)\"" "\\1" inc "${inc}")
    foreach(d ${dir} ${RPMA_LIVE_INCLUDE_DIR})
      if(EXISTS ${d}/${inc})
        file(READ ${d}/${inc} header)
        string(APPEND text "${header}")
        break()
      endif()
    endforeach()
  endforeach()
  set(found "")
  if(text MATCHES "RPMA_LACKS_")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  string(REGEX MATCHALL "rpma_[a-z0-9_]+[ ]*[(][^3]" calls "${text}")
  foreach(c ${calls})
    string(REGEX REPLACE "[ ]*[(].*" "" c "${c}")
    if(c IN_LIST RPMA_NOT_YET)
      list(APPEND found ${c})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES found)
  set(${out} ${found} PARENT_SCOPE)
endfunction()

function(add_live_test)
  cmake_parse_arguments(LT "HELGRIND;EMULATED;MOCK;INTERPOSES" "NAME" "ENV;WRAP" ${ARGN})
  if(NOT LT_NAME OR LT_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_live_test(NAME <name> [ENV VAR=value...] [WRAP command...] [HELGRIND] [EMULATED] [MOCK] [INTERPOSES]): ${ARGN}")
  endif()
  set(name ${LT_NAME})
  set(src ${CMAKE_CURRENT_SOURCE_DIR}/${name}.c)
  if(NOT EXISTS ${src})
    message(FATAL_ERROR "add_live_test: ${src} does not exist")
  endif()
  if(RPMA_LIVE_FILTER AND NOT name MATCHES "${RPMA_LIVE_FILTER}")
    return()
  endif()
  # A test that calls an upstream function our library does not export yet
  # is registered but disabled: CTest lists it as not run, by name. (A test
  # may instead guard such parts with #ifndef RPMA_LACKS_<function>.)
  rpma_missing_calls(${src} missing)
  if(missing)
    add_test(NAME live.${name} COMMAND false)
    set_tests_properties(live.${name} PROPERTIES DISABLED TRUE)
    message(STATUS "live.${name} waits for: ${missing}")
    return()
  endif()
  set(bin live_${name})
  add_executable(${bin} ${src})
  target_link_libraries(${bin} rpma_live)
  # every live program in one place, whichever folder its source is in
  set_target_properties(${bin} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
  if(LT_MOCK)
    target_sources(${bin} PRIVATE ${RPMA_TESTS_C_DIR}/common/rpma_mock.c)
  endif()
  if(LT_MOCK OR LT_INTERPOSES)
    set_target_properties(${bin} PROPERTIES ENABLE_EXPORTS ON)
    target_link_libraries(${bin} ${CMAKE_DL_LIBS})
  endif()
  set(test_env "")
  if(LT_ENV)
    set(test_env env ${LT_ENV})
  endif()
  rxe_test(live.${name} ${test_env} ${LT_WRAP} ${RPMA_TESTS_C_DIR}/scripts/run-diff.sh
    $<TARGET_FILE:${bin}> ${RPMA_LIB_DIR} ${RPMA_REFERENCE_DIR})
  if(LT_HELGRIND)
    rxe_test(live.${name}.helgrind env LD_LIBRARY_PATH=${RPMA_LIB_DIR} RPMA_THREADS_ROUNDS=20
      RPMA_TEST_EXPECT_LIB=${RPMA_LIB_DIR}/librpma.so.0
      valgrind -q --tool=helgrind --error-exitcode=99
      --suppressions=${RPMA_TESTS_C_DIR}/valgrind/helgrind.supp $<TARGET_FILE:${bin}>)
  endif()
  if(LT_EMULATED)
    rxe_test(live.${name}.emulated env LD_LIBRARY_PATH=${RPMA_LIB_DIR}
      RPMA_TEST_EXPECT_LIB=${RPMA_LIB_DIR}/librpma.so.0 RPMA_NATIVE_FLUSH=0
      RPMA_NATIVE_ATOMIC_WRITE=0 $<TARGET_FILE:${bin}>)
  endif()
endfunction()
