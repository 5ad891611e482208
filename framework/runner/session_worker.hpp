// A session with its own thread, so the runner can have one statement in flight per transaction and still ask
// the server, from its control connection, whether a statement waits on a lock.
#pragma once

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
  ~SessionWorker();
  SessionWorker(const SessionWorker&) = delete;
  SessionWorker& operator=(const SessionWorker&) = delete;

  // Starts executing `sql`; the worker must be idle.
  void start(std::string sql);
  bool busy() const;
  // The outcome of the statement started last, once it is done.
  std::optional<Outcome> take();
  // Runs `sql` and waits for it (for statements that cannot wait on a lock, e.g. cleanup ROLLBACK).
  Outcome run(std::string sql);

  const drivers::Session& session() const { return *session_; }
  // The level this session was last set to (so SET is only sent when it changes).
  std::optional<IsolationLevel> isolation;
  bool broken = false;  // the connection was lost; the target replaces this worker

 private:
  void loop();

  std::unique_ptr<drivers::Session> session_;
  CompletionSignal& signal_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::optional<std::string> job_;
  std::optional<Outcome> result_;
  bool running_ = false;
  bool stop_ = false;
  bool inline_ = false;
  std::thread thread_;
};

}  // namespace txprop::runner
