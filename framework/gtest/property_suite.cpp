// The test body of every TXPROP_PROPERTY suite (PropertyTest::check_property): open the suite's target, run the
// property with a PropertyRunner (case_runner.cpp), then pass, fail or show a documented deviation, with the
// suite's record (result_summary.hpp).
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "result_summary.hpp"
#include "run_summary.hpp"
#include "txprop/internal/targets.hpp"

namespace txprop {

namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Targets lost in this process (URI -> why), so later suites on them end with one line each.
std::map<std::string, std::string>& lost_targets() {
  static std::map<std::string, std::string> m;
  return m;
}

}  // namespace

void PropertyTest::check_property(const std::string& property, const std::function<void(const TestCase&)>& body) {
  const SuiteParam& p = GetParam();
  if (!p.config_error.empty()) {
    run_summary::write(suite_record(property, p, "error", nullptr, first_line(p.config_error)));
    GTEST_FAIL() << p.config_error;
  }
  Target* target = nullptr;
  try {
    target = &shared_target(p.config);
  } catch (const TargetError& e) {
    run_summary::write(suite_record(property, p, "error", nullptr, first_line(e.what())));
    GTEST_FAIL() << e.what();
  }
  if (auto lost = lost_targets().find(p.config.uri); lost != lost_targets().end()) {
    try {
      target->check_alive();
      lost_targets().erase(lost);
    } catch (const TargetError& e) {
      GTEST_FAIL() << fmt::format("txprop: target {} is unreachable since an earlier suite ({})", p.config.masked_uri(),
                                  e.what());
    }
  }
  // The settings see the target as opened (its server version), so the generator makes only what that server has.
  SuiteParam opened = p;
  opened.config = target->config();
  runner_ = std::make_unique<PropertyRunner>(property, *target, p, settings_for(property, opened));
  const PropertyResult r = runner_->check(body);
  if (!r.target_lost.empty()) lost_targets()[GetParam().config.uri] = r.target_lost;
  RecordProperty("cases", std::to_string(r.cases));
  if (r.failed && r.verdict && r.verdict->only_deviations()) {
    // The engine departs from the level the property checks, as its documentation says: shown, not failed.
    RecordProperty("documented_deviation", r.verdict->summary());
    run_summary::write(suite_record(property, p, "deviation", &r, "", target->server_version()));
    std::cout << fmt::format("[txprop] {}/{}: documented deviation {} from the claimed level, shown here shrunk "
                             "({} cases before it):\n{}",
                             property, p.name(), r.verdict->summary(), r.cases, r.message);
    return;
  }
  if (r.failed) {
    run_summary::write(suite_record(property, p, "failed", &r, r.verdict ? "" : first_line(r.message), target->server_version()));
    GTEST_FAIL() << r.message << (r.message.empty() || r.message.back() == '\n' ? "" : "\n") << r.summary();
  }
  if (r.cases == 0) {
    const std::string line = fmt::format("txprop: {}/{} ran no case (cases = {}; TXPROP_CASES?)", property,
                                         p.name(), runner_->settings().cases);
    run_summary::write(suite_record(property, p, "failed", &r, line, target->server_version()));
    GTEST_FAIL() << line;
  }
  run_summary::write(suite_record(property, p, "passed", &r, "", target->server_version()));
  const std::string summary = r.summary();
  const std::size_t eol = std::min(summary.find('\n'), summary.size());
  std::cout << fmt::format("[txprop] {}/{}: {} on {}, no violation{}\n", property, p.name(), summary.substr(0, eol),
                           target->server_version(), summary.substr(eol));
}

}  // namespace txprop
