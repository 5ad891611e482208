// PropertyRunner: one property on one target and level, driven by RapidCheck. Each generated case and each shrink
// attempt runs on a freshly reset database and is judged; the first failure is shrunk within the budget and
// written as a report folder. The crash re-run is in crash_rerun.cpp, progress lines in progress.cpp.
#include <algorithm>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "progress.hpp"
#include "rapidcheck_glue.hpp"
#include "report/counterexample_report.hpp"
#include "shards.hpp"
#include "shrink_helpers.hpp"
#include "workers.hpp"
#include "txprop/property.hpp"

namespace txprop {

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
  Judgement j = judge_case(oracle, target_, c, [&](const TestCase& prepared) { return run(prepared); });
  // The failure report shows the run the verdict judged (RC_ASSERT_VERDICT hands last_history() to judge()).
  if (j.verdict.judged_run) last_history_ = std::move(j.history);
  return std::move(j.verdict);
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

// One generated case or shrink attempt. Every way a case fails (RC_ASSERT_VERDICT, RC_ASSERT, RC_FAIL, an exception)
// gets the shrink budget, uncounted shrink attempts and the report folder.
void PropertyRunner::attempt(const std::function<void(const TestCase&)>& body, const TestCase& c) {
  if (shrinking_) {
    // A crash is not shrunk; nor is anything once the target was lost.
    if (no_shrink_ || target_lost_) return;
    if (result_.shrink_attempts == 0) shrink_start_ = std::chrono::steady_clock::now();
    // Past the budget every attempt passes, so RapidCheck accepts no further shrink and stops.
    if (++result_.shrink_attempts > settings_.shrink_attempts ||
        std::chrono::steady_clock::now() - shrink_start_ > settings_.shrink_time) {
      result_.shrink_budget_spent = true;
      return;
    }
    // A helper found that this attempt passes: RapidCheck goes on to the next (shrink_helpers.hpp).
    if (shrink_pool_ && shrink_pool_->known_to_pass(c)) return;
  } else if (workers::stop_requested()) {
    return;  // another worker found a failure: this one runs no further case (workers.hpp)
  } else {
    ++result_.cases;
  }
  attempt_ran_ = attempt_judged_ = false;
  const bool first_failure = !shrinking_;
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
    if (r.type == rc::detail::CaseResult::Type::Failure) {
      record_failure(c, r.description);
      note_failure(c);
      if (first_failure) workers::request_stop();
    }
    throw;
  } catch (const std::exception& e) {
    record_failure(c, std::string("exception: ") + e.what());
    note_failure(c);
    if (first_failure) workers::request_stop();
    throw;
  } catch (...) {
    record_failure(c, "unknown exception");
    note_failure(c);
    if (first_failure) workers::request_stop();
    throw;
  }
}

// RapidCheck accepts every failing attempt (rc::detail::shrinkTestCase): `c` is the case whose shrink candidates come
// next. A crash is not shrunk, and a helper process never starts helpers of its own.
void PropertyRunner::note_failure(const TestCase& c) {
  if (no_shrink_ || target_lost_ || !shrink_pool_) return;
  shrink_pool_->failed(c);
}

// In a helper process (shrink_helpers.hpp): whether attempt `c` fails, as a shrink attempt of this runner would.
shrink_helpers::Judged PropertyRunner::judge_for_helper(const std::function<void(const TestCase&)>& body,
                                                        const TestCase& c) {
  using shrink_helpers::Judged;
  shrinking_ = true;  // nothing is counted, and no report is written
  settings_.shrink_attempts = std::numeric_limits<int>::max();
  settings_.shrink_time = std::chrono::hours(24 * 365);
  if (no_shrink_ || target_lost_) return Judged::Unknown;
  Judged j = Judged::Pass;
  try {
    attempt(body, c);
  } catch (const rc::detail::CaseResult& r) {
    j = r.type == rc::detail::CaseResult::Type::Failure ? Judged::Fail : Judged::Pass;
  } catch (...) {
    j = Judged::Unknown;  // an exception fails an attempt, but one that only a helper meets is judged again here
  }
  return no_shrink_ || target_lost_ ? Judged::Unknown : j;
}

PropertyResult PropertyRunner::check(const std::function<void(const TestCase&)>& body) {
  const std::string id = property_ + "/" + suite_.name();
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = settings_.cases;
  params.maxSize = settings_.max_size;
  if (settings_.seed) params.seed = *settings_.seed;
  result_.seed = params.seed;
  if (shrink_helpers::is_helper()) {  // a helper runs no case of its own: it judges the shrink attempts it is sent
    shrink_helpers::serve(id, suite_.level, [&](const TestCase& c) { return judge_for_helper(body, c); });
    return result_;
  }
  if (const int jobs = std::min(settings_.jobs, settings_.cases); jobs > 1 && !workers::is_worker() && workers::can_split()) {
    result_ = workers::run({property_, suite_.name(), jobs, settings_.cases, params.seed});
    return result_;
  }

  // Shrink helpers (shrink_helpers.hpp) start with the suite: they are ready by its first failure.
  if (settings_.shrink_jobs > 1) {
    shrink_pool_ = std::make_shared<shrink_helpers::Pool>(settings_.shrink_jobs - 1, id, suite_.level);
    shrink_pool_->start();
  }
  const gen::Options options = settings_.generator;
  const auto prop = rc::detail::toProperty([&] { attempt(body, *gen::test_case(options)); });
  rc::detail::TestMetadata metadata;
  metadata.id = id;
  metadata.description = id;
  ProgressListener listener(id, settings_.cases, result_);
  listener.suppress_reproduce = &no_shrink_;
  const double reset_before = target_.metrics().reset_seconds;
  const auto rc_result =
      rc::detail::checkProperty(prop, metadata, params, listener, rc::detail::configuration().reproduce);
  if (shrink_pool_) result_.shrink_attempts_answered_ahead = shrink_pool_->answered();
  shrink_pool_.reset();  // the helpers end (and drop their databases)
  result_.seconds = listener.seconds();
  result_.reset_seconds = target_.metrics().reset_seconds - reset_before;
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
  write_counterexample("RC_PARAMS=\"reproduce=" + rc::detail::reproduceMapToString({{id, f.reproduce}}) + "\"");
  return result_;
}

// The minimal failing case's report folder and the message the failing test prints.
void PropertyRunner::write_counterexample(const std::string& rc_reproduce) {
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
  ce.reproduce = no_shrink_ ? "txprop replay scenario.txn (in the report folder; not shrunk)" : rc_reproduce;
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
}

}  // namespace txprop
