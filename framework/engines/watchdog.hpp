// Bounds a blocking client-library call that has no timeout of its own (libpq waits in poll(-1)): while a Guard
// lives, the watched socket is shut down once the deadline passes, so the call returns as a lost connection.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace txprop::drivers {

class SocketWatchdog {
 public:
  SocketWatchdog();
  ~SocketWatchdog();
  SocketWatchdog(const SocketWatchdog&) = delete;
  SocketWatchdog& operator=(const SocketWatchdog&) = delete;

  class Guard {
   public:
    Guard(SocketWatchdog& w, int fd, std::chrono::milliseconds timeout);
    ~Guard();
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    // Whether the deadline passed and the socket was shut down.
    bool fired() const;

   private:
    SocketWatchdog& w_;
  };

 private:
  void loop();
  std::mutex mutex_;
  std::condition_variable cv_;
  int fd_ = -1;
  bool armed_ = false, fired_ = false, stop_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;
};

}  // namespace txprop::drivers
