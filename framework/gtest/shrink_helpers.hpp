// Shrink candidates judged in parallel (TXPROP_SHRINK_JOBS=N, default TXPROP_JOBS; issue 22 item 3). RapidCheck
// shrinks by trying the candidates of the smallest failing case so far one after the other and accepting the first
// that still fails (rc::detail::shrinkTestCase); the candidates are gen::shrink_test_case(that case), in that order.
// Most of them pass, and each costs a reset and a run. So while this process judges candidate i itself, N-1 helper
// processes judge the next ones (i+1, i+2, ...) on databases of their own; when RapidCheck then asks for a candidate a
// helper found passing, the attempt passes at once, and one a helper found failing (or could not judge) is run here.
// RapidCheck still sees every attempt in its order and accepts the same first failing one, so the shrunk case, its
// steps and its attempts (the budget) are those of a sequential shrink: only the wall time differs.
//
// A helper is this program run again (the same GoogleTest test, or the same command line outside GoogleTest) with
// TXPROP_SHRINK_HELPER set: its PropertyRunner::check for the same property and suite judges the cases it is sent
// (one scenario file each, framework/scenario: a case is delegated only when its text reads back equal to it) and
// answers pass, fail or unknown, and every other check of that process runs nothing. A helper ends when its pipe
// closes, dropping its database like any run.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "txprop/isolation.hpp"
#include "txprop/test_case.hpp"

namespace txprop::shrink_helpers {

enum class Judged { Unknown, Pending, Pass, Fail };

// Helper side. Whether this process is a helper (then no check runs cases of its own).
bool is_helper();
// If this process is a helper for `id` ("Atomicity/mariadb_serializable") and has not served yet, answers the
// requests on its pipe with `judge` until the pipe closes. Returns whether it served.
bool serve(const std::string& id, IsolationLevel level, const std::function<Judged(const TestCase&)>& judge);

// The shrinking process's side: helpers started with the suite, candidates handed out ahead.
class Pool {
 public:
  Pool(int helpers, std::string id, IsolationLevel level);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Starts the helpers (they get ready while the cases before the first failure run). failed() starts them too.
  void start();
  // Before RapidCheck's shrink attempt `c`: true if a helper found that it passes (the attempt needs no run). Hands
  // the candidates after it to idle helpers as a side effect.
  bool known_to_pass(const TestCase& c);
  // `c` failed (the first failure, or an accepted shrink): its candidates come next.
  void failed(const TestCase& c);
  // How many attempts the helpers answered (for the benchmark).
  int answered() const { return answered_; }

 private:
  struct Helper;
  void hand_out(std::size_t from);
  void collect(Helper& h, bool wait);
  std::size_t find(const TestCase& c) const;

  int wanted_;
  std::string id_;
  IsolationLevel level_;
  std::vector<std::unique_ptr<Helper>> helpers_;
  bool started_ = false;
  int generation_ = 0;                 // one per failing case: answers about an older one's candidates are dropped
  std::vector<TestCase> candidates_;   // gen::shrink_test_case(the last failing case)
  std::vector<Judged> judged_;
  std::vector<int> judged_by_;         // the helper a Pending candidate is with
  std::size_t cursor_ = 0;             // where RapidCheck is expected to ask next
  int answered_ = 0;
};

}  // namespace txprop::shrink_helpers
