// The harness's crash re-run: what a property suite does when the target fails during a case (a lost connection, a
// server gone or stalled, tables the engine refused). The case is the counterexample as it is, re-run once when the
// target answers again, and never shrunk against a dead server.
#include <iostream>

#include <fmt/format.h>

#include "txprop/property.hpp"

namespace txprop {

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
  const std::string kind = fault == Fault::Rejected                         ? "setup-rejected"
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

}  // namespace txprop
