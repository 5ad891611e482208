#include "txprop/internal/scenario_runner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "txprop/oracle.hpp"
#include "txprop/sql.hpp"
#include "txprop/internal/targets.hpp"
#include "run_summary.hpp"

namespace txprop {

namespace {

// The run itself must not crash, hang, or contain statements the engine rejects (run_verdict), except the steps the
// scenario expects to fail on purpose (step_error_problems checks those).
std::string run_problems(const History& h, Dialect dialect, const std::vector<StepErrorExpectation>& on_purpose = {}) {
  History judged = h;
  for (const StepErrorExpectation& e : on_purpose)
    judged.outcomes.at(static_cast<std::size_t>(e.txn)).at(static_cast<std::size_t>(e.step)) = Outcome{};
  const Verdict v = run_verdict(judged, dialect);
  return v.ok() ? std::string() : v.explain();
}

std::string version_text(int server_version_num) {
  return server_version_num > 0 ? fmt::format("{}.{}", server_version_num / 10000, server_version_num % 10000)
                                : std::string("version unknown");
}

// Why an expectation was not met. An expected finding that the run no longer shows is said in so many words: the
// engine may have fixed the bug the scenario keeps, and the file should then say from which version.
// The verdict's text names the transactions as the scenario does (relabel), the run's own ones as the observer.
std::string unmet(const Scenario& s, const Expectation& e, const Verdict& v, IsolationLevel level,
                  const TargetConfig& config, std::size_t transactions) {
  const std::string where = fmt::format("{}:{}: expected {}{} {} at {} on {} ({})", s.path, e.line, e.property,
                                        e.negated ? " not" : "", e.verdict, sql_name(level), config.kind,
                                        version_text(config.server_version_num));
  if (e.verdict != "ok" && !e.negated && v.ok())
    return fmt::format("{}, got ok: the bug no longer reproduces here; if this version fixed it, end the expectation's "
                       "versions before it ({}@<first>-<last affected>) and expect ok from the fixed version on\n{}\n",
                       where, e.target, relabel(v.explain(), s.transaction_names, transactions));
  return fmt::format("{}, got {}\n{}\n", where, v.summary(), relabel(v.explain(), s.transaction_names, transactions));
}

// Each step expected to fail on purpose failed with that code (any case) or error class.
std::string step_error_problems(const Scenario& s, const History& h, const std::vector<StepErrorExpectation>& expected,
                                IsolationLevel level, const std::string& kind) {
  std::string out;
  for (const StepErrorExpectation& e : expected) {
    const Outcome& o = h.outcomes.at(static_cast<std::size_t>(e.txn)).at(static_cast<std::size_t>(e.step));
    const bool met = o.failed() && (to_string(o.error.cls) == e.error ||
                                    std::equal(e.error.begin(), e.error.end(), o.error.code.begin(), o.error.code.end(),
                                               [](char a, char b) { return std::toupper(a) == std::toupper(b); }));
    if (!met)
      out += fmt::format("{}:{}: expected error {} at {} at {} on {}, got {}\n", s.path, e.line, e.error, e.step_name,
                         sql_name(level), kind, summary(o));
  }
  return out;
}

}  // namespace

ScenarioVocabulary registered_vocabulary() {
  ScenarioVocabulary v;
  v.target_kinds = known_target_kinds();
  v.target_parameters = known_target_parameters();
  for (const Oracle* o : registered_oracles()) {
    std::vector<std::string> kinds = o->finding_kinds();
    kinds.insert(kinds.end(), run_finding_kinds().begin(), run_finding_kinds().end());
    v.findings[o->name()] = kinds;
    for (const std::string& alias : o->aliases()) v.findings[alias] = kinds;
  }
  return v;
}

bool expectation_met(const Expectation& e, const Verdict& v, const Oracle& oracle) {
  // A kind or any finding in that class (lost-update meets G-single); "not X": no finding in class X.
  const bool found = std::any_of(v.findings.begin(), v.findings.end(), [&](const Finding& f) {
    const auto classes = oracle.classes_of(f.kind);
    return std::find(classes.begin(), classes.end(), e.verdict) != classes.end();
  });
  // No verdict meets no expectation but "no-verdict": "not X" holds only of a history the oracle judged.
  if (e.verdict == "no-verdict") return v.inconclusive && v.findings.empty();
  return e.verdict == "ok" ? v.ok() : e.negated ? !found && !v.inconclusive : found;
}

std::string replay_scenario(const Scenario& s, Target& target, std::vector<IsolationLevel>* levels_run,
                            std::string* seen) {
  const std::string kind = target.config().kind;
  std::vector<IsolationLevel> levels = s.levels.empty() ? target.config().levels : s.levels;
  std::erase_if(levels, [&](IsolationLevel l) {
    const auto& supported = target.config().levels;
    return std::find(supported.begin(), supported.end(), l) == supported.end();
  });
  std::string problems;
  for (IsolationLevel level : levels) {
    if (levels_run) levels_run->push_back(level);
    const TestCase c = s.replay_case(level);
    // Group the expectations by property: each property judges its own run.
    std::map<std::string, std::vector<Expectation>> by_property;
    for (const Expectation& e : s.expectations)
      if (e.applies(kind, level, target.config().server_version_num, target.config().params))
        by_property[e.property].push_back(e);
    std::vector<StepErrorExpectation> errors;
    for (const StepErrorExpectation& e : s.step_errors)
      if (e.applies(kind, level)) errors.push_back(e);
    if (by_property.empty() || !errors.empty()) {
      // The scenario must at least replay cleanly, with the steps that fail on purpose failing as expected (on the
      // case as written: an oracle's instrumentation renumbers steps).
      const History h = target.run(c);
      if (auto p = run_problems(h, target.dialect(), errors); !p.empty())
        problems += fmt::format("at {}: {}", sql_name(level), relabel(p, s.transaction_names, h.transactions.size()));
      if (!h.finding) problems += step_error_problems(s, h, errors, level, kind);
    }
    for (const auto& [property, expectations] : by_property) {
      const Oracle* oracle = find_oracle(property);
      if (!oracle) {
        problems += fmt::format("{}:{}: unknown property '{}'\n", s.path, expectations.front().line, property);
        continue;
      }
      // An oracle that cannot judge this shape of case (e.g. autocommit statements for sdg) says so, and every
      // expectation of it fails with that line, "not X" included: it never passes what it did not judge.
      const Judgement j = judge_case(*oracle, target, c, [&](const TestCase& prepared) { return target.run(prepared); });
      if (!j.refused.empty()) {
        for (const Expectation& e : expectations)
          problems += fmt::format("{}:{}: {} cannot judge scenario '{}' at {} on {}: {}\n", s.path, e.line, property,
                                  s.name, sql_name(level), kind, j.refused);
        continue;
      }
      const Verdict& v = j.verdict;
      if (seen) *seen += fmt::format("{}{} {} {}", seen->empty() ? "" : "; ", short_name(level), property, v.summary());
      for (const Expectation& e : expectations)
        if (!expectation_met(e, v, *oracle))
          problems += unmet(s, e, v, level, target.config(), j.history.transactions.size());
    }
  }
  return problems;
}

namespace {

class ScenarioTest : public ::testing::Test {
 public:
  ScenarioTest(std::string path, TargetConfig config, std::string load_error)
      : path_(std::move(path)), config_(std::move(config)), load_error_(std::move(load_error)) {}
  void TestBody() override {
    const auto start = std::chrono::steady_clock::now();
    auto record = [&](const char* status, const std::string& levels, const std::string& message) {
      run_summary::write_scenario(path_, config_.name, config_.uri.empty() ? "" : config_.masked_uri(), status,
                                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                                  levels, message);
    };
    if (!load_error_.empty()) {
      record("error", "", load_error_);
      GTEST_FAIL() << load_error_;
    }
    Scenario s;
    try {
      s = load_scenario(path_, registered_vocabulary());
    } catch (const ScenarioError& e) {
      record("error", "", e.what());
      GTEST_FAIL() << e.what();
    }
    Target* target = nullptr;
    try {
      target = &shared_target(config_);
    } catch (const TargetError& e) {
      record("error", "", e.what());
      GTEST_FAIL() << e.what();
    }
    if (const std::string why = s.version_mismatch(target->config().server_version_num); !why.empty()) {
      record("skipped", "", why);
      GTEST_SKIP() << path_ << " on " << config_.name << ": " << why;
    }
    std::vector<IsolationLevel> levels;
    std::string seen;  // what each expected property found, for the record of a passed file (the version matrix)
    const std::string problems = replay_scenario(s, *target, &levels, &seen);
    std::string names;
    for (auto l : levels) names += (names.empty() ? "" : ", ") + short_name(l);
    record(levels.empty() ? "skipped" : problems.empty() ? "passed" : "failed", names, problems.empty() ? seen : problems);
    if (levels.empty()) GTEST_SKIP() << path_ << ": no level of the scenario is tested on " << config_.name;
    EXPECT_EQ(problems, "") << path_;
    RecordProperty("levels", names);
  }

 private:
  std::string path_;
  TargetConfig config_;
  std::string load_error_;
};

// A scenario file that applies to no configured target, registered where its program asks for it (engine bugs): one
// skipped case that says which engines it needs, so that it is seen rather than silently absent.
class NotConfiguredTest : public ::testing::Test {
 public:
  NotConfiguredTest(std::string path, std::string applies) : path_(std::move(path)), applies_(std::move(applies)) {}
  void TestBody() override {
    const std::string why = fmt::format("it applies to {} and TXPROP_TARGETS has no such target", applies_);
    run_summary::write_scenario(path_, "not_configured", "", "skipped", 0.0, "", why);
    GTEST_SKIP() << path_ << ": " << why;
  }

 private:
  std::string path_, applies_;
};

std::string test_name(const std::filesystem::path& file) {
  std::string out;
  for (char c : file.stem().string()) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

}  // namespace

void register_scenario_tests(const std::vector<std::string>& directories, bool report_unconfigured) {
  std::vector<TargetConfig> targets;
  std::string config_error;
  try {
    targets = configured_targets();
  } catch (const TargetError& e) {
    config_error = e.what();
  }
  std::vector<std::filesystem::path> files;
  for (const auto& dir : directories) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.path().extension() == ".txn") files.push_back(entry.path());
    if (ec) config_error += fmt::format("txprop: cannot read scenario directory {}: {}\n", dir, ec.message());
  }
  std::sort(files.begin(), files.end());
  auto add = [](const std::string& name, const std::string& path, const TargetConfig& config, const std::string& err) {
    ::testing::RegisterTest("Scenario", name.c_str(), nullptr, nullptr, path.c_str(), 0,
                            [=]() -> ::testing::Test* { return new ScenarioTest(path, config, err); });
  };
  if (!config_error.empty()) {
    add("configuration", "", TargetConfig{}, config_error);
    return;
  }
  for (const TargetConfig& config : targets)
    if (config.levels.empty())  // e.g. ?levels=,,, : the target would silently run nothing.
      add("no_level/" + config.name, "", config,
          fmt::format("txprop: target {}: no isolation level to test (levels=...)", config.masked_uri()));
  for (const auto& file : files) {
    std::optional<Scenario> s;
    try {
      s = load_scenario(file.string(), registered_vocabulary());
    } catch (const ScenarioError& e) {
      add(test_name(file) + "/invalid", file.string(), TargetConfig{}, e.what());
      continue;
    }
    bool any = false;
    for (const TargetConfig& config : targets)
      if (s->applies_to(config.kind)) {
        add(test_name(file) + "/" + config.name, file.string(), config, "");
        any = true;
      }
    if (!any && report_unconfigured) {
      std::string applies;
      for (const auto& kind : s->applies) applies += (applies.empty() ? "" : ", ") + kind;
      const std::string path = file.string();
      ::testing::RegisterTest("Scenario", (test_name(file) + "/not_configured").c_str(), nullptr, nullptr, path.c_str(),
                              0, [=]() -> ::testing::Test* { return new NotConfiguredTest(path, applies); });
    }
  }
}

}  // namespace txprop
