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
#include "rapidcheck_glue.hpp"
#include "run_summary.hpp"
#include "shards.hpp"
#include "txprop/engine.hpp"
#include "txprop/env_settings.hpp"
#include "txprop/sql.hpp"
#include "txprop/targets.hpp"


namespace txprop {

namespace {

using Clock = std::chrono::steady_clock;

std::map<std::string, std::vector<SettingsHook>>& hooks() {
  static std::map<std::string, std::vector<SettingsHook>> h;
  return h;
}

bool rc_params_set(const std::string& key) {
  const char* v = std::getenv("RC_PARAMS");
  return v && std::string(v).find(key + "=") != std::string::npos;
}

// Progress on long runs: a line every few seconds while generating or shrinking.
class ProgressListener final : public rc::detail::TestListener {
 public:
  ProgressListener(std::string name, int cases, const PropertyResult& result)
      : name_(std::move(name)), cases_(cases), result_(result) {}
  void onTestCaseFinished(const rc::detail::CaseDescription& d) override {
    rc::detail::globalTestListener().onTestCaseFinished(d);
    ++done_;
    if (d.result.type == rc::detail::CaseResult::Type::Failure) found_at_ = Clock::now();
    // RC_TAG / RC_CLASSIFY labels of the generated cases (shrink attempts are not cases).
    if (d.result.type != rc::detail::CaseResult::Type::Discard)
      for (const std::string& tag : d.tags)  // RapidCheck shows string tags quoted
        ++rc_tags_[tag.size() >= 2 && tag.front() == '"' && tag.back() == '"' ? tag.substr(1, tag.size() - 2) : tag];
    maybe_print();
  }
  void onShrinkTried(const rc::detail::CaseDescription& d, bool accepted) override {
    rc::detail::globalTestListener().onShrinkTried(d, accepted);
    ++shrink_tries_;
    shrink_steps_ += accepted;
    maybe_print();
  }
  void onTestFinished(const rc::detail::TestMetadata& m, const rc::detail::TestResult& r) override {
    // A crash is replayed from its scenario file, not with RC_PARAMS (RapidCheck would print a reproduce line).
    if (!(suppress_reproduce && *suppress_reproduce)) rc::detail::globalTestListener().onTestFinished(m, r);
  }
  const bool* suppress_reproduce = nullptr;
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  double seconds_to_first_finding() const {
    return found_at_ ? std::chrono::duration<double>(*found_at_ - start_).count() : -1.0;
  }
  int shrink_steps() const { return shrink_steps_; }
  int shrink_tries() const { return shrink_tries_; }
  const std::map<std::string, int>& rc_tags() const { return rc_tags_; }

 private:
  void maybe_print() {
    const auto now = Clock::now();
    if (now - last_print_ < std::chrono::seconds(5)) return;
    last_print_ = now;
    std::string line;
    if (found_at_)
      line = fmt::format("[txprop] {}: found after {} case(s), shrinking: step {} accepted of {} tried, {:.1f} s", name_,
                         done_, shrink_steps_, shrink_tries_, std::chrono::duration<double>(now - *found_at_).count());
    else
      line = fmt::format("[txprop] {}: {}/{} cases, {:.1f} cases/s", name_, done_, cases_,
                         done_ / std::max(1e-9, seconds()));
    for (const auto& [standing, kinds] : result_.counted) {
      line += standing == Standing::Allowed ? ", allowed by the level:" : ", documented:";
      for (const auto& [kind, n] : kinds) line += fmt::format(" {} x{}", kind, n.cases);
    }
    if (result_.inconclusive) line += fmt::format(", {} without a verdict", result_.inconclusive);
    std::cerr << line << "\n";
    run_summary::progress(line);
  }

  std::string name_;
  int cases_;
  const PropertyResult& result_;
  std::map<std::string, int> rc_tags_;
  int done_ = 0;
  int shrink_tries_ = 0;
  int shrink_steps_ = 0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_print_ = Clock::now();
  std::optional<Clock::time_point> found_at_;
};

}  // namespace

std::string SuiteParam::name() const {
  if (!config_error.empty()) {
    if (config.name.empty()) return "invalid_TXPROP_TARGETS";
    if (config.levels.empty()) return config.name + "_no_level";
    // Invalid settings: the suite keeps its name and fails with their line.
  }
  return config.name + "_" + short_name(level);
}

std::ostream& operator<<(std::ostream& os, const SuiteParam& p) {
  return os << (p.config_error.empty() ? p.config.masked_uri() + " at " + sql_name(p.level) : p.config_error);
}

bool register_property_settings(const std::string& property, SettingsHook hook) {
  hooks()[property].push_back(std::move(hook));
  return true;
}

void apply_engine_capabilities(gen::Options& o, const EngineCapabilities& c) {
  o.locking_reads = c.locking_reads;
  o.update_join = c.update_join;
  o.delete_join = c.delete_join;
  o.update_joined_table = c.update_joined_table;
  o.delete_joined_table = c.delete_joined_table;
  o.upsert_forms = c.upserts;
  o.upsert_update_where = c.upsert_update_where;
  o.lock_strengths = c.lock_strengths;
  o.lock_waits = c.lock_waits;
}

namespace {
// What the property's TXPROP_SETTINGS hooks say, before the environment: which suites exist depends on this alone.
PropertySettings hooked_settings(const std::string& property, const SuiteParam& param) {
  PropertySettings s;
  for (const auto& hook : hooks()[property]) hook(s, param);
  return s;
}
}  // namespace

PropertySettings settings_for(const std::string& property, const SuiteParam& param) {
  PropertySettings s = hooked_settings(property, param);
  if (auto n = env_integer("TXPROP_CASES", 1, kMaxCases)) s.cases = static_cast<int>(*n);
  else if (rc_params_set("max_success")) s.cases = rc::detail::configuration().testParams.maxSuccess;
  if (auto n = env_integer("TXPROP_MAX_SIZE", 1, kMaxSize)) s.max_size = static_cast<int>(*n);
  else if (rc_params_set("max_size")) s.max_size = rc::detail::configuration().testParams.maxSize;
  if (auto n = env_integer("TXPROP_SHRINK_ATTEMPTS", 0, kMaxShrinkAttempts)) s.shrink_attempts = static_cast<int>(*n);
  if (auto n = env_integer("TXPROP_SHRINK_SECONDS", 0, kMaxShrinkSeconds)) s.shrink_time = std::chrono::seconds(*n);
  if (auto n = env_unsigned("TXPROP_SEED")) s.seed = static_cast<std::uint64_t>(*n);
  else if (rc_params_set("seed")) s.seed = rc::detail::configuration().testParams.seed;
  if (const char* dir = std::getenv("TXPROP_REPORT_DIR"); dir && *dir) s.report_dir = dir;
  // TXPROP_CONTENTION=1: the generator's contention mode (gen::Options::contention).
  if (auto n = env_integer("TXPROP_CONTENTION", 0, 1)) s.generator.contention = *n != 0;
  apply_engine_capabilities(s.generator, param.config.profile().capabilities(param.config));
  s.generator.isolation = param.level;
  // A cluster's cases place each transaction on a node (one node per host of the URI).
  if (param.config.profile().multi_host()) s.generator.nodes = static_cast<int>(param.config.hosts.size());
  // TXPROP_MIX_LEVELS=1: the other transactions of each case draw their levels from the target's.
  if (auto n = env_integer("TXPROP_MIX_LEVELS", 0, 1); n && *n == 1) s.generator.mixed_levels = param.config.levels;
  shards::apply(s.cases, s.seed, rc::detail::configuration().testParams.seed);
  return s;
}

// One suite per (target, level), named as always even when the settings are invalid: then each fails with the
// settings' line, so a run filtered to some suites (--gtest_filter=Wss.check/sqlite_serializable) fails too
// instead of running nothing (issue 23). Only targets that cannot be parsed leave no names to use.
std::vector<SuiteParam> property_suites(const std::string& property) {
  std::string settings_error;
  try {
    validate_environment();
    shards::take_over();  // before GoogleTest reads the sharding variables (shards.hpp)
  } catch (const SettingError& e) {
    settings_error = e.what();
  }
  std::vector<TargetConfig> targets;
  try {
    targets = configured_targets();
  } catch (const TargetError& e) {
    SuiteParam p;
    p.config_error = settings_error.empty() ? e.what() : settings_error + "\n" + e.what();
    return {p};
  }
  std::vector<SuiteParam> out;
  for (const TargetConfig& config : targets) {
    if (config.levels.empty()) {
      // e.g. ?levels=,,, : the target would silently run nothing.
      SuiteParam p;
      p.config = config;
      p.config_error = fmt::format("txprop: target {}: no isolation level to test (levels=...)", config.masked_uri());
      out.push_back(std::move(p));
    }
    for (IsolationLevel level : config.levels) {
      SuiteParam p{config, level, settings_error};
      const PropertySettings s = hooked_settings(property, p);
      if (!s.levels.empty() && std::find(s.levels.begin(), s.levels.end(), level) == s.levels.end()) continue;
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::string PropertyResult::summary() const {
  std::string out = fmt::format("{} cases in {:.1f} s ({:.1f} cases/s)", cases, seconds, cases / std::max(1e-9, seconds));
  if (inconclusive) out += fmt::format(", {} without a verdict", inconclusive);
  for (const std::string& c : transient_crashes) out += "\n  crash that did not reproduce on a re-run: " + c;
  for (const auto& [standing, kinds] : counted)
    for (const auto& [kind, n] : kinds)
      out += fmt::format("\n  {} in {} case(s): {} ({})",
                         standing == Standing::Allowed ? "allowed by the level" : "documented behaviour", n.cases, kind,
                         n.source);
  for (const auto& [tag, n] : tags) out += fmt::format("\n  {}: {} case(s)", tag, n);
  return out;
}

PropertyRunner::PropertyRunner(std::string property, Target& target, SuiteParam suite, PropertySettings settings)
    : property_(std::move(property)), target_(target), suite_(std::move(suite)), settings_(std::move(settings)) {}

History PropertyRunner::run(const TestCase& c) {
  last_history_ = target_.run(c);
  attempt_ran_ = true;
  // A crash, or a server that stopped answering the runner's own questions (the wait probe), is the target
  // failing: the case is not shrunk against it.
  if (last_history_.finding &&
      (last_history_.finding->kind == RunFinding::Kind::Crash || last_history_.finding->fault != Fault::None)) {
    crash(c, &last_history_, last_history_.finding->detail, last_history_.finding->fault);
    // Not reproduced on a re-run: that re-run's history is judged instead.
  }
  const History& h = last_history_;
  const Verdict v = run_verdict(h, target_.dialect());
  if (judge(v, h)) RC_FAIL(v.explain());
  return last_history_;
}

Verdict PropertyRunner::run_oracle(const Oracle& oracle, const TestCase& c) {
  oracle_ = &oracle;
  // A case the oracle refuses never runs (and gives no verdict): the last history is then the case as given.
  last_history_ = History::never_ran(c, suite_.config.name, "");
  return judge_case(oracle, target_, c, [&](const TestCase& prepared) { return run(prepared); }).verdict;
}

// A lost connection or a server gone during a case: the case is the counterexample as it is. When the target
// answers again the case is re-run once; a crash that does not reproduce is counted and reported, and the re-run's
// history stands; one that reproduces, or a target that stays away, fails the property without shrinking.
void PropertyRunner::crash(const TestCase& c, const History* h, const std::string& detail, Fault fault) {
  if (shrinking_ || rerunning_) {
    // A shrink attempt cannot tell a smaller case from a dead server: stop shrinking here.
    target_lost_ = true;
    result_.target_lost = detail;
    RC_DISCARD("target lost");
  }
  History first;
  if (h) {
    first = *h;
  } else {
    first = History::never_ran(c, suite_.config.name, target_.server_version());  // the reset or a connect failed
  }
  // A server that stopped answering is a hang; one that went away, a crash (the driver typed the fault).
  if (!first.finding)
    first.finding = RunFinding{fault == Fault::Stalled ? RunFinding::Kind::Hang : RunFinding::Kind::Crash,
                               StepRef{-1, -1}, detail, fault};
  const std::string kind = fault == Fault::Rejected         ? "setup-rejected"
                           : first.finding->kind == RunFinding::Kind::Hang ? "hang"
                                                                           : "crash";
  const std::string where = first.finding->step.txn < 0 ? std::string("between the steps (reset or state read)")
                                                        : to_string(first.finding->step);
  std::string rerun;
  bool reproduced = false, reachable = true;
  if (fault == Fault::Rejected) {
    rerun = "not re-run: the engine gives the same answer every time";
  } else if (fault == Fault::Unreachable || (!h && fault == Fault::Stalled)) {
    // Connecting (or txprop's own call) failed just now: asking again at once would only wait for the same timeout.
    reachable = false;
    rerun = "not re-run: the target cannot be reached";
    result_.target_lost = detail;
  } else try {
    target_.check_alive();
    rerunning_ = true;
    History again = target_.run(c);
    rerunning_ = false;
    reproduced = again.finding && again.finding->kind == RunFinding::Kind::Crash;
    rerun = reproduced ? "re-run once: it reproduces (" + again.finding->detail + ")"
                       : "re-run once: it did not reproduce";
    if (!reproduced) {
      result_.transient_crashes.push_back(fmt::format("case {}: {}", result_.cases, detail));
      std::cerr << fmt::format("[txprop] {}/{}: crash in case {} ({}); {}\n", property_, suite_.name(), result_.cases,
                               detail, rerun);
      last_history_ = std::move(again);
      return;
    }
  } catch (const TargetError& e) {
    rerunning_ = false;
    reachable = false;
    rerun = std::string("not re-run: ") + e.what();
    result_.target_lost = e.what();
  }
  Verdict v;
  v.property = "run";
  Finding f;
  f.kind = kind;
  f.explanation = fmt::format("{} {}: {}\n{}\n", kind, where, detail, rerun);
  v.findings.push_back(std::move(f));
  failing_history_ = first;
  failing_verdict_ = v;
  attempt_judged_ = true;  // the harness's record_failure keeps this verdict
  shrinking_ = true;
  no_shrink_ = true;
  target_lost_ = !reachable;
  RC_FAIL(v.explain());
}

bool PropertyRunner::judge(const Verdict& v, const History& h) {
  if (v.fails()) {
    attempt_judged_ = true;
    failing_history_ = h;
    failing_verdict_ = v;
    shrinking_ = true;
    return true;
  }
  if (!shrinking_) {
    if (v.inconclusive) ++result_.inconclusive;
    for (const std::string& tag : v.tags) ++result_.tags[tag];
    std::set<std::string> kinds;
    for (const Finding& f : v.findings) {
      if (!f.documented() || !kinds.insert(f.kind).second) continue;
      PropertyResult::Counted& n = result_.counted[f.standing][f.kind];
      ++n.cases;
      n.source = f.source;
    }
  }
  return false;
}

void PropertyRunner::record_failure(const TestCase& c, const std::string& description) {
  shrinking_ = true;
  if (attempt_judged_) return;  // judge() recorded the verdict that failed
  // A plain RC_ASSERT / RC_FAIL or an exception: the same report, with the assertion as the finding.
  if (attempt_ran_) {
    failing_history_ = last_history_;
  } else {  // the property ran nothing on the target: the report shows the case alone
    failing_history_ =
        History::never_ran(c, suite_.config.name, target_.server_version() + "; the property ran nothing on the target");
  }
  Verdict v;
  v.property = property_;
  Finding f;
  f.kind = "assertion";
  f.explanation = description;
  if (!f.explanation.empty() && f.explanation.back() != '\n') f.explanation += '\n';
  v.findings.push_back(std::move(f));
  failing_verdict_ = std::move(v);
}

PropertyResult PropertyRunner::check(const std::function<void(const TestCase&)>& body) {
  const std::string id = property_ + "/" + suite_.name();
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = settings_.cases;
  params.maxSize = settings_.max_size;
  if (settings_.seed) params.seed = *settings_.seed;
  result_.seed = params.seed;

  Clock::time_point shrink_start;
  const gen::Options options = settings_.generator;
  const auto prop = rc::detail::toProperty([&] {
    const TestCase c = *gen::test_case(options);
    if (shrinking_) {
      // A crash is not shrunk; nor is anything once the target was lost.
      if (no_shrink_ || target_lost_) return;
      if (result_.shrink_attempts == 0) shrink_start = Clock::now();
      // Past the budget every attempt passes, so RapidCheck accepts no further shrink and stops.
      if (++result_.shrink_attempts > settings_.shrink_attempts ||
          Clock::now() - shrink_start > settings_.shrink_time) {
        result_.shrink_budget_spent = true;
        return;
      }
    } else {
      ++result_.cases;
    }
    attempt_ran_ = attempt_judged_ = false;
    // Every way a case fails (RC_ASSERT_VERDICT, RC_ASSERT, RC_FAIL, an exception) gets the shrink budget above,
    // uncounted shrink attempts and the report folder.
    try {
      try {
        body(c);
      } catch (const CaseRejected& e) {
        // The engine refused the case's tables or rows (e.g. a missing privilege): its own error, not shrunk.
        crash(c, nullptr, e.what(), Fault::Rejected);
      } catch (const TargetError& e) {
        // The target could not be used for this case (reset, reconnect or a replay failed).
        crash(c, nullptr, e.what(), e.fault());
        body(c);  // it answered again and the crash did not reproduce: the case is judged on a fresh run
      }
    } catch (const rc::detail::CaseResult& r) {
      if (r.type == rc::detail::CaseResult::Type::Failure) record_failure(c, r.description);
      throw;
    } catch (const std::exception& e) {
      record_failure(c, std::string("exception: ") + e.what());
      throw;
    } catch (...) {
      record_failure(c, "unknown exception");
      throw;
    }
  });

  rc::detail::TestMetadata metadata;
  metadata.id = id;
  metadata.description = id;
  ProgressListener listener(id, settings_.cases, result_);
  listener.suppress_reproduce = &no_shrink_;
  const auto rc_result =
      rc::detail::checkProperty(prop, metadata, params, listener, rc::detail::configuration().reproduce);
  result_.seconds = listener.seconds();
  result_.seconds_to_first_finding = listener.seconds_to_first_finding();
  result_.shrink_steps = listener.shrink_steps();
  for (const auto& [tag, n] : listener.rc_tags()) result_.tags[tag] += n;

  if (rc_result.template is<rc::detail::SuccessResult>()) return result_;
  result_.failed = true;
  if (!rc_result.template is<rc::detail::FailureResult>() || !failing_history_) {
    std::ostringstream msg;
    rc::detail::printResultMessage(rc_result, msg);
    result_.message = msg.str();
    return result_;
  }
  const auto& f = rc_result.template get<rc::detail::FailureResult>();
  report::Counterexample ce;
  ce.property = property_;
  ce.suite = suite_.name();
  ce.target = suite_.config;
  ce.level = suite_.level;
  ce.history = *failing_history_;
  if (oracle_) {
    ce.oracle = oracle_->name();
    ce.scenario_case = oracle_->strip(ce.history.test_case);
    ce.preparation = oracle_->preparation(ce.history.test_case);
  }
  ce.verdict = *failing_verdict_;
  ce.reproduce = no_shrink_ ? "txprop replay scenario.txn (in the report folder; not shrunk)"
                            : "RC_PARAMS=\"reproduce=" + rc::detail::reproduceMapToString({{id, f.reproduce}}) + "\"";
  result_.history = ce.history;
  result_.verdict = ce.verdict;
  result_.reproduce = ce.reproduce;
  try {
    result_.report_dir = report::write_report(ce, settings_.report_dir);
  } catch (const std::exception& e) {
    result_.report_dir.clear();
    result_.message = std::string("(report not written: ") + e.what() + ")\n";
  }
  result_.message += fmt::format(
      "{}\nfound after {} case(s) in {:.1f} s; {}.\nreport: {}\nreplay: {}\n", report::describe(ce), result_.cases,
      result_.seconds_to_first_finding,
      no_shrink_ ? std::string("not shrunk (the target failed: a crash or a hang of the server)")
                 : fmt::format("shrunk in {} step(s) ({} attempts{}{})", result_.shrink_steps, result_.shrink_attempts,
                               result_.shrink_budget_spent ? ", shrink budget spent" : "",
                               target_lost_ ? "; shrinking stopped, the target was lost: " + result_.target_lost : ""),
      result_.report_dir, ce.reproduce);
  return result_;
}

namespace {

// The record of one suite run for TXPROP_SUMMARY_FILE (see run_summary.hpp).
// `server`: the server's version where the target was reached ("PostgreSQL 17.10"), for tables across versions.
run_summary::Record suite_record(const std::string& property, const SuiteParam& p, const std::string& status,
                                 const PropertyResult* r, const std::string& message, const std::string& server = "") {
  run_summary::Record rec;
  rec.add("type", "property").add("suite", property).add("target", p.config.name.empty() ? "?" : p.config.name);
  rec.add("uri", p.config.uri.empty() ? std::string() : p.config.masked_uri());
  if (!server.empty()) rec.add("server", server);
  rec.add("level", p.config_error.empty() ? short_name(p.level) : std::string("-"));
  rec.add("status", status);
  shards::add_to_record(rec, r ? r->seed : 0);
  if (r) {
    rec.add("cases", r->cases).add("seconds", r->seconds).add("inconclusive", r->inconclusive);
    rec.add("shrink_steps", r->shrink_steps).add("shrink_attempts", r->shrink_attempts);
    std::string tags;
    for (const auto& [tag, n] : r->tags)
      tags += (tags.empty() ? "" : ",") + run_summary::Record().add("tag", tag).add("cases", n).json();
    for (const Standing standing : {Standing::Documented, Standing::Allowed}) {
      std::string counted;
      if (const auto it = r->counted.find(standing); it != r->counted.end())
        for (const auto& [kind, n] : it->second) {
          run_summary::Record d;
          d.add("kind", kind).add("cases", n.cases).add("source", n.source);
          counted += (counted.empty() ? "" : ",") + d.json();
        }
      rec.add_raw(std::string(to_string(standing)), "[" + counted + "]");
    }
    rec.add_raw("tags", "[" + tags + "]");
    if (r->verdict) rec.add("finding", r->verdict->summary());
    if (!r->report_dir.empty()) rec.add("report", r->report_dir);
  }
  if (!message.empty()) rec.add("message", message);
  return rec;
}

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
