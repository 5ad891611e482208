#include "session_worker.hpp"

namespace txprop::runner {

std::uint64_t CompletionSignal::generation() const {
  std::lock_guard lock(mutex_);
  return generation_;
}

void CompletionSignal::notify() {
  {
    std::lock_guard lock(mutex_);
    ++generation_;
  }
  cv_.notify_all();
}

SessionWorker::SessionWorker(std::unique_ptr<drivers::Session> session, CompletionSignal& signal,
                             bool inline_execution)
    : session_(std::move(session)), signal_(signal), inline_(inline_execution) {
  if (!inline_) thread_ = std::thread([this] { loop(); });
}

SessionWorker::~SessionWorker() {
  if (inline_) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void SessionWorker::start(std::string sql) {
  if (inline_) {
    result_ = sql.empty() ? Outcome{} : session_->execute(sql);
    running_ = false;
    signal_.notify();
    return;
  }
  {
    std::lock_guard lock(mutex_);
    job_ = std::move(sql);
    result_.reset();
    running_ = true;
  }
  cv_.notify_all();
}

bool SessionWorker::busy() const {
  std::lock_guard lock(mutex_);
  return running_;
}

std::optional<Outcome> SessionWorker::take() {
  std::lock_guard lock(mutex_);
  if (running_ || !result_) return std::nullopt;
  std::optional<Outcome> out = std::move(result_);
  result_.reset();
  return out;
}

Outcome SessionWorker::run(std::string sql) {
  if (inline_) return sql.empty() ? Outcome{} : session_->execute(sql);
  start(std::move(sql));
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return !running_; });
  Outcome out = std::move(*result_);
  result_.reset();
  return out;
}

void SessionWorker::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || job_.has_value(); });
    if (stop_) return;
    std::string sql = std::move(*job_);
    job_.reset();
    lock.unlock();
    // An empty statement is a step that sends nothing (BEGIN/end of an autocommit transaction).
    Outcome outcome = sql.empty() ? Outcome{} : session_->execute(sql);
    lock.lock();
    result_ = std::move(outcome);
    running_ = false;
    cv_.notify_all();
    signal_.notify();
  }
}

}  // namespace txprop::runner
