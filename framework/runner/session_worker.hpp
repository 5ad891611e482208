// A session with its own thread, so the runner can have one statement in flight per transaction and still ask
// the server, from its control connection, whether a statement waits on a lock.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "txprop/driver.hpp"

namespace txprop::runner {

// Wakes the runner when any worker finishes a statement.
class CompletionSignal {
 public:
  std::uint64_t generation() const;
  void notify();
  // Waits until the generation differs from `seen` or the timeout passes; returns whether it changed.
  template <typename Duration>
  bool wait_for(std::uint64_t seen, Duration timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return generation_ != seen; });
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::uint64_t generation_ = 0;
};

class SessionWorker {
 public:
  // `inline_execution`: run statements on the caller's thread. For engines whose statements never wait in the
  // server (SQLite reports a wait as SQLITE_BUSY at once), a thread hand-off would only add latency.
  SessionWorker(std::unique_ptr<drivers::Session> session, CompletionSignal& signal, bool inline_execution);
  // Never blocks for long: a thread still stuck in the client library after its session was abandoned is left
  // behind (detached, with the state it uses), never joined forever.
  ~SessionWorker();
  SessionWorker(const SessionWorker&) = delete;
  SessionWorker& operator=(const SessionWorker&) = delete;

  // Starts executing `sql`; the worker must be idle.
  void start(std::string sql);
  bool busy() const;
  // The outcome of the statement started last, once it is done.
  std::optional<Outcome> take();
  // Whether that outcome is an error, once it is done (without taking it).
  std::optional<bool> peek_failed() const;
  // Runs `sql` and waits for it (for statements that cannot wait on a lock, e.g. cleanup ROLLBACK), at most
  // `run_limit`: past it the session is abandoned and the outcome is a lost connection.
  Outcome run(std::string sql);
  // Shuts the session's connection down so a stuck call returns; waits up to `grace` for it. Returns whether the
  // worker is idle afterwards. The worker is broken from then on.
  bool abandon(std::chrono::milliseconds grace);

  const drivers::Session& session() const { return *state_->session; }
  // The level this session was last set to (so SET is only sent when it changes).
  std::optional<IsolationLevel> isolation;
  int writer = 0;  // the writer id last set (render_set_writer; Transaction::writer), 0: none
  bool broken = false;  // the connection was lost; the target replaces this worker
  std::chrono::milliseconds run_limit{30000};

 private:
  struct State {
    std::unique_ptr<drivers::Session> session;
    CompletionSignal* signal = nullptr;
    std::mutex mutex;
    std::condition_variable cv;
    std::optional<std::string> job;
    std::optional<Outcome> result;
    bool running = false;
    bool stop = false;
    bool detached = false;  // the owner is gone: do not signal it
  };
  static void loop(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
  bool inline_ = false;
  std::thread thread_;
};

}  // namespace txprop::runner
