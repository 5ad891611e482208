// main() of scenario test programs (txprop_add_scenario_tests): registers one test per scenario file and
// configured target, then runs GoogleTest. The directories come from the program that links this.
#include <gtest/gtest.h>

#include "txprop/property.hpp"  // closes the shared targets when the tests end
#include "txprop/internal/scenario_runner.hpp"

// Defined by the source txprop_add_scenario_tests generates: a NULL-terminated list of directories, and whether a
// file that applies to no configured target is one skipped case (REPORT_UNCONFIGURED).
extern const char* const txprop_scenario_directories[];
extern const bool txprop_scenario_report_unconfigured;

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::vector<std::string> dirs;
  for (const char* const* d = txprop_scenario_directories; *d; ++d) dirs.emplace_back(*d);
  txprop::register_scenario_tests(dirs, txprop_scenario_report_unconfigured);
  return RUN_ALL_TESTS();
}
