# Test discovery that follows the environment of the ctest run (TXPROP_TARGETS above all).
#
# txprop_add_property_tests() and txprop_add_scenario_tests() register a ctest include file per test program
# (TEST_INCLUDE_FILES); ctest reads it at the start of every run, including `ctest -N`. It calls
# txprop_discover_tests_impl(), which runs the program with --gtest_list_tests under the current environment and
# registers one ctest case per GoogleTest case directly from memory. Nothing is cached in the build tree and no
# file is written, so a changed TXPROP_TARGETS is seen by the next run without a rebuild, and several ctest
# processes sharing one build tree never read each other's half-written lists.
#
# A program that cannot list its tests, or lists none, becomes one failing case that says so. Every case fails
# when its program runs no test (a filter that matches nothing passes in GoogleTest).

function(txprop_discover_tests_impl)
  cmake_parse_arguments(ARG "" "TARGET;EXECUTABLE;WORKING_DIRECTORY;TIMEOUT;DISCOVERY_TIMEOUT;CMAKE_COMMAND"
    "LABELS;EXTRA_ARGS" ${ARGN})
  set(no_test_regex "\\[==========\\] Running 0 tests")
  if(NOT EXISTS "${ARG_EXECUTABLE}")
    add_test("${ARG_TARGET}.not_built" "${ARG_CMAKE_COMMAND}" -E echo
      "txprop: ${ARG_EXECUTABLE} is not built (run cmake --build)")
    set_tests_properties("${ARG_TARGET}.not_built" PROPERTIES FAIL_REGULAR_EXPRESSION "txprop:" LABELS "${ARG_LABELS}")
    return()
  endif()
  execute_process(COMMAND "${ARG_EXECUTABLE}" --gtest_list_tests
    WORKING_DIRECTORY "${ARG_WORKING_DIRECTORY}"
    TIMEOUT ${ARG_DISCOVERY_TIMEOUT}
    OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE result)
  # TXPROP_TARGETS is not repeated here: it may hold passwords, and the one function that masks them is txprop's own
  # (masked_uri); the program's own output, included below, names the targets masked.
  if("$ENV{TXPROP_TARGETS}" STREQUAL "")
    set(targets "unset (sqlite:)")
  else()
    set(targets "as set")
  endif()
  if(NOT result EQUAL 0)
    string(REPLACE "\n" " " detail "${errors} ${output}")
    string(SUBSTRING "${detail}" 0 2000 detail)
    add_test("${ARG_TARGET}.discovery" "${ARG_CMAKE_COMMAND}" -E echo
      "txprop: ${ARG_TARGET} --gtest_list_tests failed (${result}) with TXPROP_TARGETS ${targets}: ${detail}")
    set_tests_properties("${ARG_TARGET}.discovery" PROPERTIES FAIL_REGULAR_EXPRESSION "txprop:" LABELS "${ARG_LABELS}")
    return()
  endif()

  # One line per suite ("Wss.") followed by its cases ("  check/sqlite_serializable  # GetParam() = ...").
  string(REPLACE ";" "," output "${output}")
  string(REPLACE "\n" ";" lines "${output}")
  set(suite "")
  set(count 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^([A-Za-z0-9_/]+)\\.( |$)")
      set(suite "${CMAKE_MATCH_1}")
    elseif(suite AND line MATCHES "^  ([A-Za-z0-9_/]+)( |$)")
      set(name "${suite}.${CMAKE_MATCH_1}")
      add_test("${name}" "${ARG_EXECUTABLE}" "--gtest_filter=${name}" --gtest_also_run_disabled_tests ${ARG_EXTRA_ARGS})
      set_tests_properties("${name}" PROPERTIES
        WORKING_DIRECTORY "${ARG_WORKING_DIRECTORY}"
        TIMEOUT ${ARG_TIMEOUT}
        SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
        FAIL_REGULAR_EXPRESSION "${no_test_regex}"
        LABELS "${ARG_LABELS}")
      if(name MATCHES "(^|\\.|/)DISABLED_")
        set_tests_properties("${name}" PROPERTIES DISABLED TRUE)
      endif()
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
  if(count EQUAL 0)
    add_test("${ARG_TARGET}.no_tests" "${ARG_CMAKE_COMMAND}" -E echo
      "txprop: ${ARG_TARGET} lists no test with TXPROP_TARGETS ${targets}")
    set_tests_properties("${ARG_TARGET}.no_tests" PROPERTIES FAIL_REGULAR_EXPRESSION "txprop:" LABELS "${ARG_LABELS}")
  endif()
endfunction()
