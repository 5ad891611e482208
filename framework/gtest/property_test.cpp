#include "txprop/property.hpp"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "report/counterexample_report.hpp"
#include "txprop/sql.hpp"
#include "txprop/targets.hpp"

// RapidCheck's own listener (prints RC_PARAMS="reproduce=..." at exit) and its reproduce encoder live in the
// library but not in its installed headers.
namespace rc::detail {
TestListener& globalTestListener();
std::string reproduceMapToString(const std::unordered_map<std::string, Reproduce>& reproduceMap);
}  // namespace rc::detail

namespace txprop {

namespace {

using Clock = std::chrono::steady_clock;

std::map<std::string, std::vector<SettingsHook>>& hooks() {
  static std::map<std::string, std::vector<SettingsHook>> h;
  return h;
}

std::optional<long long> env_number(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  if (*end) throw std::invalid_argument(fmt::format("txprop: {}={} is not a number", name, v));
  return n;
}

bool rc_params_set(const std::string& key) {
  const char* v = std::getenv("RC_PARAMS");
  return v && std::string(v).find(key + "=") != std::string::npos;
}

// Progress on long runs: a line every few seconds while generating or shrinking.
class ProgressListener final : public rc::detail::TestListener {
 public:
  ProgressListener(std::string name, int cases) : name_(std::move(name)), cases_(cases) {}
  void onTestCaseFinished(const rc::detail::CaseDescription& d) override {
    rc::detail::globalTestListener().onTestCaseFinished(d);
    ++done_;
    if (d.result.type == rc::detail::CaseResult::Type::Failure) found_at_ = Clock::now();
    maybe_print();
  }
  void onShrinkTried(const rc::detail::CaseDescription& d, bool accepted) override {
    rc::detail::globalTestListener().onShrinkTried(d, accepted);
    ++shrink_tries_;
    shrink_steps_ += accepted;
    maybe_print();
  }
  void onTestFinished(const rc::detail::TestMetadata& m, const rc::detail::TestResult& r) override {
    rc::detail::globalTestListener().onTestFinished(m, r);
  }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  double seconds_to_first_finding() const {
    return found_at_ ? std::chrono::duration<double>(*found_at_ - start_).count() : -1.0;
  }
  int shrink_steps() const { return shrink_steps_; }
  int shrink_tries() const { return shrink_tries_; }

 private:
  void maybe_print() {
    const auto now = Clock::now();
    if (now - last_print_ < std::chrono::seconds(5)) return;
    last_print_ = now;
    if (found_at_)
      std::cerr << fmt::format("[txprop] {}: shrinking, {} steps accepted of {} tried, {:.1f} s\n", name_,
                               shrink_steps_, shrink_tries_,
                               std::chrono::duration<double>(now - *found_at_).count());
    else
      std::cerr << fmt::format("[txprop] {}: {}/{} cases, {:.1f} cases/s\n", name_, done_, cases_,
                               done_ / std::max(1e-9, seconds()));
  }

  std::string name_;
  int cases_;
  int done_ = 0;
  int shrink_tries_ = 0;
  int shrink_steps_ = 0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_print_ = Clock::now();
  std::optional<Clock::time_point> found_at_;
};

}  // namespace

std::string SuiteParam::name() const {
  if (!config_error.empty()) return "invalid_TXPROP_TARGETS";
  return config.name + "_" + short_name(level);
}

std::ostream& operator<<(std::ostream& os, const SuiteParam& p) {
  return os << (p.config_error.empty() ? p.config.masked_uri() + " at " + sql_name(p.level) : p.config_error);
}

bool register_property_settings(const std::string& property, SettingsHook hook) {
  hooks()[property].push_back(std::move(hook));
  return true;
}

PropertySettings settings_for(const std::string& property, const SuiteParam& param) {
  PropertySettings s;
  for (const auto& hook : hooks()[property]) hook(s, param);
  if (auto n = env_number("TXPROP_CASES")) s.cases = static_cast<int>(*n);
  else if (rc_params_set("max_success")) s.cases = rc::detail::configuration().testParams.maxSuccess;
  if (auto n = env_number("TXPROP_MAX_SIZE")) s.max_size = static_cast<int>(*n);
  else if (rc_params_set("max_size")) s.max_size = rc::detail::configuration().testParams.maxSize;
  if (auto n = env_number("TXPROP_SHRINK_ATTEMPTS")) s.shrink_attempts = static_cast<int>(*n);
  if (auto n = env_number("TXPROP_SHRINK_SECONDS")) s.shrink_time = std::chrono::seconds(*n);
  if (auto n = env_number("TXPROP_SEED")) s.seed = static_cast<std::uint64_t>(*n);
  else if (rc_params_set("seed")) s.seed = rc::detail::configuration().testParams.seed;
  if (const char* dir = std::getenv("TXPROP_REPORT_DIR"); dir && *dir) s.report_dir = dir;
  s.generator.engine = param.config.engine;
  s.generator.isolation = param.level;
  return s;
}

std::vector<SuiteParam> property_suites(const std::string& property) {
  std::vector<SuiteParam> out;
  std::vector<TargetConfig> targets;
  try {
    targets = configured_targets();
  } catch (const TargetError& e) {
    SuiteParam p;
    p.config_error = e.what();
    return {p};
  }
  for (const TargetConfig& config : targets)
    for (IsolationLevel level : config.levels) {
      SuiteParam p{config, level, {}};
      const PropertySettings s = settings_for(property, p);
      if (!s.levels.empty() && std::find(s.levels.begin(), s.levels.end(), level) == s.levels.end()) continue;
      out.push_back(std::move(p));
    }
  return out;
}

void PropertyTest::SetUp() {
  if (!GetParam().config_error.empty()) GTEST_FAIL() << GetParam().config_error;
  try {
    target_ = &shared_target(GetParam().config);
  } catch (const TargetError& e) {
    GTEST_FAIL() << e.what();
  }
}

Target& PropertyTest::target() { return *target_; }

History PropertyTest::run(const TestCase& c) {
  last_history_ = target().run(c);
  const History& h = last_history_;
  Verdict v;
  v.property = "run";
  if (h.finding) {
    Finding f;
    f.kind = h.finding->kind == RunFinding::Kind::Crash ? "crash" : "hang";
    f.explanation = fmt::format("{} at {}: {}\n", f.kind, to_string(h.finding->step), h.finding->detail);
    v.findings.push_back(std::move(f));
  }
  for (std::size_t t = 0; t < h.outcomes.size(); ++t)
    for (std::size_t i = 0; i < h.outcomes[t].size(); ++i)
      if (h.outcomes[t][i].failed() && h.outcomes[t][i].error.cls == ErrorClass::InvalidStatement) {
        Finding f;
        f.kind = "invalid-statement";
        f.explanation = fmt::format(
            "the engine rejected T{}.{} as invalid, a generator (or scenario) defect: {}\n  {}\n", t, i,
            render(h.test_case.transactions[t].step(i), target().dialect()), h.outcomes[t][i].error.message);
        v.findings.push_back(std::move(f));
      }
  if (judge(v, h)) RC_FAIL(v.explain());
  return last_history_;
}

void PropertyTest::remember_failure(const History& h, const Verdict& v) {
  failure_ = Failure{h.test_case, h, v};
  shrinking_ = true;
}

bool PropertyTest::judge(const Verdict& v, const History& h) {
  if (v.fails()) {
    remember_failure(h, v);
    return true;
  }
  if (!shrinking_) {
    if (v.inconclusive) ++inconclusive_;
    for (const std::string& tag : v.tags) ++tags_[tag];
    std::set<std::string> kinds;
    for (const Finding& f : v.findings)
      if (f.documented && kinds.insert(f.kind).second) {
        ++documented_[f.kind];
        documented_sources_[f.kind] = f.source;
      }
  }
  return false;
}

void PropertyTest::check_property(const std::string& property, const std::function<void(const TestCase&)>& body) {
  if (!target_) return;  // SetUp failed and said why
  settings_ = settings_for(property, GetParam());
  const std::string id = property + "/" + GetParam().name();

  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = settings_.cases;
  params.maxSize = settings_.max_size;
  if (settings_.seed) params.seed = *settings_.seed;

  int shrink_attempts = 0;
  Clock::time_point shrink_start;
  bool budget_spent = false;
  const gen::Options options = settings_.generator;
  const auto prop = rc::detail::toProperty([&] {
    const TestCase c = *gen::test_case(options);
    if (shrinking_) {
      if (shrink_attempts == 0) shrink_start = Clock::now();
      // Past the budget every attempt passes, so RapidCheck accepts no further shrink and stops.
      if (++shrink_attempts > settings_.shrink_attempts || Clock::now() - shrink_start > settings_.shrink_time) {
        budget_spent = true;
        return;
      }
    } else {
      ++cases_run_;
    }
    body(c);
  });

  rc::detail::TestMetadata metadata;
  metadata.id = id;
  metadata.description = id;
  ProgressListener listener(id, settings_.cases);
  const auto result = rc::detail::checkProperty(prop, metadata, params, listener, rc::detail::configuration().reproduce);

  std::string documented;
  for (const auto& [kind, n] : documented_)
    documented += fmt::format("\n  documented behaviour in {} case(s): {} ({})", n, kind, documented_sources_[kind]);
  for (const auto& [tag, n] : tags_) documented += fmt::format("\n  {}: {} case(s)", tag, n);
  if (!documented_.empty()) RecordProperty("documented_cases", std::to_string(documented_.size()));
  RecordProperty("cases", std::to_string(cases_run_));

  if (result.template is<rc::detail::SuccessResult>()) {
    std::cout << fmt::format("[txprop] {}: {} cases in {:.1f} s ({:.1f} cases/s) on {}, no violation{}{}\n", id,
                             cases_run_, listener.seconds(), cases_run_ / std::max(1e-9, listener.seconds()),
                             target().server_version(),
                             inconclusive_ ? fmt::format(", {} inconclusive", inconclusive_) : "", documented);
    return;
  }
  if (result.template is<rc::detail::FailureResult>() && failure_) {
    const auto& f = result.template get<rc::detail::FailureResult>();
    report::Counterexample ce;
    ce.property = property;
    ce.suite = GetParam().name();
    ce.target = GetParam().config;
    ce.level = GetParam().level;
    ce.history = failure_->history;
    ce.verdict = failure_->verdict;
    ce.reproduce = "RC_PARAMS=\"reproduce=" + rc::detail::reproduceMapToString({{id, f.reproduce}}) + "\"";
    std::string where;
    try {
      where = report::write_report(ce, settings_.report_dir);
    } catch (const std::exception& e) {
      where = std::string("(report not written: ") + e.what() + ")";
    }
    GTEST_FAIL() << fmt::format(
        "{}\nfound after {} case(s) in {:.1f} s; shrunk in {} step(s) ({} attempts{}).\nreport: {}\nreplay: {}{}\n",
        report::describe(ce), f.numSuccess + 1, listener.seconds_to_first_finding(), listener.shrink_steps(),
        listener.shrink_tries(), budget_spent ? ", shrink budget spent" : "", where, ce.reproduce, documented);
  }
  std::ostringstream msg;
  rc::detail::printResultMessage(result, msg);
  GTEST_FAIL() << msg.str();
}

}  // namespace txprop
