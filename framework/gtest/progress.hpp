// Progress of a property suite while RapidCheck runs it: a line every few seconds while generating or shrinking
// (stderr and TXPROP_PROGRESS), and the figures the suite's result keeps (time to the first finding, shrink steps,
// RC_TAG / RC_CLASSIFY labels). A worker of TXPROP_JOBS=N prints no line of its own: it keeps a snapshot of its
// progress in a file, and the suite's process prints one line for the union of its workers (workers.hpp).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "rapidcheck_glue.hpp"
#include "txprop/property.hpp"

namespace txprop {

// What a progress line says: one process's figures, or the sum of a suite's workers.
struct ProgressSnapshot {
  int done = 0;
  int shrink_tries = 0;
  int shrink_steps = 0;
  int inconclusive = 0;
  double seconds_shrinking = -1.0;  // since the first failure was found; negative while none was
  std::map<Standing, std::map<std::string, int>> counted;  // cases per documented / allowed kind

  // One line per figure ("done 12", "counted documented lost-update 3"), for a worker's snapshot file.
  std::string to_text() const;
  // Reads to_text()'s lines; an unreadable line (a file caught half-written) is skipped.
  static ProgressSnapshot parse(const std::string& text);
  // The sum of several workers' snapshots; shrinking is the longest any worker has shrunk.
  ProgressSnapshot& operator+=(const ProgressSnapshot& other);
};

// "[txprop] Wss/sqlite_serializable: 40/100 cases, 12.3 cases/s, documented: lost-update x3"; `seconds` is the time
// the cases took.
std::string progress_line(const std::string& name, int cases, const ProgressSnapshot& snapshot, double seconds);

class ProgressListener final : public rc::detail::TestListener {
 public:
  using Clock = std::chrono::steady_clock;
  ProgressListener(std::string name, int cases, const PropertyResult& result)
      : name_(std::move(name)), cases_(cases), result_(result) {}
  void onTestCaseFinished(const rc::detail::CaseDescription& d) override;
  void onShrinkTried(const rc::detail::CaseDescription& d, bool accepted) override;
  void onTestFinished(const rc::detail::TestMetadata& m, const rc::detail::TestResult& r) override;
  // When it points at true, RapidCheck's reproduce line is not printed: a crash is replayed from its scenario file,
  // not with RC_PARAMS.
  const bool* suppress_reproduce = nullptr;
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  double seconds_to_first_finding() const {
    return found_at_ ? std::chrono::duration<double>(*found_at_ - start_).count() : -1.0;
  }
  int shrink_steps() const { return shrink_steps_; }
  int shrink_tries() const { return shrink_tries_; }
  const std::map<std::string, int>& rc_tags() const { return rc_tags_; }

 private:
  void maybe_print();
  ProgressSnapshot snapshot() const;

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

}  // namespace txprop
