#include "session_worker.hpp"

#include <fmt/format.h>

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
    : state_(std::make_shared<State>()), inline_(inline_execution) {
  state_->session = std::move(session);
  state_->signal = &signal;
  if (!inline_) thread_ = std::thread(&SessionWorker::loop, state_);
}

SessionWorker::~SessionWorker() {
  if (inline_) return;
  if (busy() && !abandon(std::chrono::milliseconds(2000))) {
    // Still stuck in the client library: leave the thread behind with the state it holds.
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
    state_->detached = true;
    thread_.detach();
    return;
  }
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
  }
  state_->cv.notify_all();
  thread_.join();
}

void SessionWorker::start(std::string sql) {
  if (inline_) {
    state_->result = sql.empty() ? Outcome{} : state_->session->execute(sql);
    state_->running = false;
    state_->signal->notify();
    return;
  }
  {
    std::lock_guard lock(state_->mutex);
    state_->job = std::move(sql);
    state_->result.reset();
    state_->running = true;
  }
  state_->cv.notify_all();
}

bool SessionWorker::busy() const {
  std::lock_guard lock(state_->mutex);
  return state_->running;
}

std::optional<Outcome> SessionWorker::take() {
  std::lock_guard lock(state_->mutex);
  if (state_->running || !state_->result) return std::nullopt;
  std::optional<Outcome> out = std::move(state_->result);
  state_->result.reset();
  return out;
}

std::optional<bool> SessionWorker::peek_failed() const {
  std::lock_guard lock(state_->mutex);
  if (state_->running || !state_->result) return std::nullopt;
  return state_->result->failed();
}

Outcome SessionWorker::run(std::string sql) {
  if (inline_) return sql.empty() ? Outcome{} : state_->session->execute(sql);
  start(std::move(sql));
  {
    std::unique_lock lock(state_->mutex);
    if (state_->cv.wait_for(lock, run_limit, [&] { return !state_->running; })) {
      Outcome out = std::move(*state_->result);
      state_->result.reset();
      return out;
    }
  }
  abandon(std::chrono::milliseconds(2000));
  take();
  Outcome o = Outcome::failure(ErrorClass::LostConnection, "",
                               fmt::format("no answer within {} ms; the connection was abandoned", run_limit.count()));
  o.error.fault = Fault::Stalled;
  return o;
}

bool SessionWorker::abandon(std::chrono::milliseconds grace) {
  broken = true;
  state_->session->abandon();
  if (inline_) return true;
  std::unique_lock lock(state_->mutex);
  return state_->cv.wait_for(lock, grace, [&] { return !state_->running; });
}

void SessionWorker::loop(std::shared_ptr<State> state) {
  std::unique_lock lock(state->mutex);
  for (;;) {
    state->cv.wait(lock, [&] { return state->stop || state->job.has_value(); });
    if (state->stop && !state->job) return;
    std::string sql = std::move(*state->job);
    state->job.reset();
    lock.unlock();
    // An empty statement is a step that sends nothing (BEGIN/end of an autocommit transaction).
    Outcome outcome = sql.empty() ? Outcome{} : state->session->execute(sql);
    lock.lock();
    state->result = std::move(outcome);
    state->running = false;
    state->cv.notify_all();
    if (state->detached) return;
    state->signal->notify();
    if (state->stop) return;
  }
}

}  // namespace txprop::runner
