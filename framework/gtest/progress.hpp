// Progress of a property suite while RapidCheck runs it: a line every few seconds while generating or shrinking
// (stderr and TXPROP_PROGRESS), and the figures the suite's result keeps (time to the first finding, shrink steps,
// RC_TAG / RC_CLASSIFY labels).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "rapidcheck_glue.hpp"
#include "txprop/property.hpp"

namespace txprop {

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
