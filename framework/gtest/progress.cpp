#include "progress.hpp"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "run_summary.hpp"

namespace txprop {

void ProgressListener::onTestCaseFinished(const rc::detail::CaseDescription& d) {
  rc::detail::globalTestListener().onTestCaseFinished(d);
  ++done_;
  if (d.result.type == rc::detail::CaseResult::Type::Failure) found_at_ = Clock::now();
  // RC_TAG / RC_CLASSIFY labels of the generated cases (shrink attempts are not cases).
  if (d.result.type != rc::detail::CaseResult::Type::Discard)
    for (const std::string& tag : d.tags)  // RapidCheck shows string tags quoted
      ++rc_tags_[tag.size() >= 2 && tag.front() == '"' && tag.back() == '"' ? tag.substr(1, tag.size() - 2) : tag];
  maybe_print();
}

void ProgressListener::onShrinkTried(const rc::detail::CaseDescription& d, bool accepted) {
  rc::detail::globalTestListener().onShrinkTried(d, accepted);
  ++shrink_tries_;
  shrink_steps_ += accepted;
  maybe_print();
}

void ProgressListener::onTestFinished(const rc::detail::TestMetadata& m, const rc::detail::TestResult& r) {
  if (!(suppress_reproduce && *suppress_reproduce)) rc::detail::globalTestListener().onTestFinished(m, r);
}

void ProgressListener::maybe_print() {
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

}  // namespace txprop
