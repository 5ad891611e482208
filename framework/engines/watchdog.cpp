#include "watchdog.hpp"

#include <sys/socket.h>

namespace txprop::drivers {

SocketWatchdog::SocketWatchdog() : thread_([this] { loop(); }) {}

SocketWatchdog::~SocketWatchdog() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

SocketWatchdog::Guard::Guard(SocketWatchdog& w, int fd, std::chrono::milliseconds timeout) : w_(w) {
  {
    std::lock_guard lock(w_.mutex_);
    w_.fd_ = fd;
    w_.armed_ = fd >= 0;
    w_.fired_ = false;
    w_.deadline_ = std::chrono::steady_clock::now() + timeout;
  }
  w_.cv_.notify_all();
}

SocketWatchdog::Guard::~Guard() {
  std::lock_guard lock(w_.mutex_);
  w_.armed_ = false;
}

bool SocketWatchdog::Guard::fired() const {
  std::lock_guard lock(w_.mutex_);
  return w_.fired_;
}

void SocketWatchdog::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (stop_) return;
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    const auto deadline = deadline_;
    if (cv_.wait_until(lock, deadline, [&] { return stop_ || !armed_ || deadline_ != deadline; })) continue;
    ::shutdown(fd_, SHUT_RDWR);
    fired_ = true;
    armed_ = false;
  }
}

}  // namespace txprop::drivers
