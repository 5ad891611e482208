# txprop_add_property_tests(<name> SOURCES <files>...)
# Builds a test program from property sources (TXPROP_PROPERTY ...) and registers every (target, level) case
# with ctest. Discovery runs when ctest runs (PRE_TEST), so the cases follow TXPROP_TARGETS at that moment.
function(txprop_add_property_tests name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE txprop::txprop GTest::gtest_main ${ARG_LIBRARIES})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 1500)
  endif()
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT ${ARG_TIMEOUT})
endfunction()
