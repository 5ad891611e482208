// A run that ran nothing of what it asked for fails (issue 23). GoogleTest passes a run whose --gtest_filter matches
// no test ("0 tests, PASSED"), so a campaign script filtering to Wss.check/sqlite_serializable would pass having
// checked nothing when the suite is not there (a target not configured, a misspelt name). After the run, every
// positive pattern of the filter must have matched a test that ran (or that runs in another shard); otherwise the
// program says which pattern and exits 1.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "txprop/property.hpp"

namespace txprop {

namespace {

// GoogleTest's filter syntax: '*' any string, '?' any character.
bool glob_matches(const char* pattern, const char* name) {
  if (*pattern == '\0') return *name == '\0';
  if (*pattern == '*') return glob_matches(pattern + 1, name) || (*name != '\0' && glob_matches(pattern, name + 1));
  return *name != '\0' && (*pattern == '?' || *pattern == *name) && glob_matches(pattern + 1, name + 1);
}

// The positive patterns of a filter "p1:p2-n1:n2".
std::vector<std::string> positive_patterns(const std::string& filter) {
  const std::string positive = filter.substr(0, filter.find('-'));
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= positive.size()) {
    const auto colon = positive.find(':', start);
    const std::string p = positive.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!p.empty()) out.push_back(p);
    start = colon == std::string::npos ? positive.size() + 1 : colon + 1;
  }
  if (out.empty()) out.push_back("*");
  return out;
}

// Lines saying what the run was asked for and did not run; empty when everything asked for ran.
std::vector<std::string> unmet_patterns(const ::testing::UnitTest& unit) {
  const std::string filter = GTEST_FLAG_GET(filter);
  std::vector<std::string> out;
  for (const std::string& pattern : positive_patterns(filter)) {
    bool ran = false;
    for (int i = 0; i < unit.total_test_suite_count() && !ran; ++i) {
      const ::testing::TestSuite& suite = *unit.GetTestSuite(i);
      for (int j = 0; j < suite.total_test_count() && !ran; ++j) {
        const ::testing::TestInfo& t = *suite.GetTestInfo(j);
        ran = (t.should_run() || t.is_in_another_shard()) &&
              glob_matches(pattern.c_str(), (std::string(t.test_suite_name()) + "." + t.name()).c_str());
      }
    }
    if (!ran)
      out.push_back(fmt::format("txprop: --gtest_filter={}: '{}' matches no test of this program, so nothing it names "
                                "was checked (--gtest_list_tests lists the tests under this TXPROP_TARGETS)",
                                filter, pattern));
  }
  if (out.empty() && unit.test_to_run_count() == 0 && unit.total_test_count() > 0)
    out.push_back(fmt::format("txprop: --gtest_filter={}: no test ran", filter));
  return out;
}

class UnmetFilterCheck final : public ::testing::EmptyTestEventListener {
  void OnTestProgramEnd(const ::testing::UnitTest& unit) override {
    const auto unmet = unmet_patterns(unit);
    if (unmet.empty()) return;
    for (const std::string& line : unmet) std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    // The result GoogleTest returns is already decided; the targets were closed in the environment's TearDown.
    std::exit(1);
  }
};

}  // namespace

bool install_unmet_filter_check() {
  ::testing::UnitTest::GetInstance()->listeners().Append(new UnmetFilterCheck);
  return true;
}

}  // namespace txprop
