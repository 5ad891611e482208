#include "progress.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "run_summary.hpp"
#include "workers.hpp"

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

std::string ProgressSnapshot::to_text() const {
  std::string text = fmt::format("done {}\nshrink {} {}\ninconclusive {}\nshrinking {}\n", done, shrink_steps,
                                 shrink_tries, inconclusive, seconds_shrinking);
  for (const auto& [standing, kinds] : counted)
    for (const auto& [kind, n] : kinds) text += fmt::format("counted {} {} {}\n", to_string(standing), kind, n);
  return text;
}

ProgressSnapshot ProgressSnapshot::parse(const std::string& text) {
  ProgressSnapshot s;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::string key, standing, kind;
    int n = 0;
    if (!(in >> key)) continue;
    if (key == "done") in >> s.done;
    else if (key == "shrink") in >> s.shrink_steps >> s.shrink_tries;
    else if (key == "inconclusive") in >> s.inconclusive;
    else if (key == "shrinking") in >> s.seconds_shrinking;
    else if (key == "counted" && in >> standing >> kind >> n)
      s.counted[standing == to_string(Standing::Allowed) ? Standing::Allowed : Standing::Documented][kind] += n;
  }
  return s;
}

ProgressSnapshot& ProgressSnapshot::operator+=(const ProgressSnapshot& other) {
  done += other.done;
  shrink_tries += other.shrink_tries;
  shrink_steps += other.shrink_steps;
  inconclusive += other.inconclusive;
  seconds_shrinking = std::max(seconds_shrinking, other.seconds_shrinking);
  for (const auto& [standing, kinds] : other.counted)
    for (const auto& [kind, n] : kinds) counted[standing][kind] += n;
  return *this;
}

std::string progress_line(const std::string& name, int cases, const ProgressSnapshot& s, double seconds) {
  std::string line;
  if (s.seconds_shrinking >= 0)
    line = fmt::format("[txprop] {}: found after {} case(s), shrinking: step {} accepted of {} tried, {:.1f} s", name,
                       s.done, s.shrink_steps, s.shrink_tries, s.seconds_shrinking);
  else
    line = fmt::format("[txprop] {}: {}/{} cases, {:.1f} cases/s", name, s.done, cases, s.done / std::max(1e-9, seconds));
  for (const auto& [standing, kinds] : s.counted) {
    line += standing == Standing::Allowed ? ", allowed by the level:" : ", documented:";
    for (const auto& [kind, n] : kinds) line += fmt::format(" {} x{}", kind, n);
  }
  if (s.inconclusive) line += fmt::format(", {} without a verdict", s.inconclusive);
  return line;
}

ProgressSnapshot ProgressListener::snapshot() const {
  ProgressSnapshot s;
  s.done = done_;
  s.shrink_tries = shrink_tries_;
  s.shrink_steps = shrink_steps_;
  s.inconclusive = result_.inconclusive;
  if (found_at_) s.seconds_shrinking = std::chrono::duration<double>(Clock::now() - *found_at_).count();
  for (const auto& [standing, kinds] : result_.counted)
    for (const auto& [kind, n] : kinds) s.counted[standing][kind] = n.cases;
  return s;
}

void ProgressListener::maybe_print() {
  const auto now = Clock::now();
  // A worker's snapshot is fresh each second for the suite's line (workers.hpp); a process prints every 5 s.
  const bool worker = workers::is_worker();
  if (now - last_print_ < (worker ? std::chrono::seconds(1) : std::chrono::seconds(5))) return;
  last_print_ = now;
  if (worker) return workers::report_progress(snapshot().to_text());
  const std::string line = progress_line(name_, cases_, snapshot(), seconds());
  std::cerr << line << "\n";
  run_summary::progress(line);
}

}  // namespace txprop
