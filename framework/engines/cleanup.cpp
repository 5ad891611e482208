#include "cleanup.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

namespace txprop::drivers {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<int, std::function<void()>> cleanups;
  int next = 1;
};
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: the signal thread may use it at any time
  return *r;
}

// SIGINT and SIGTERM are blocked in every thread (the mask is inherited by threads created later) and taken by
// one thread with sigwait, which can talk to the engines; a signal handler could not.
void signal_thread() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int sig = 0;
  if (sigwait(&set, &sig) != 0) return;
  std::map<int, std::function<void()>> cleanups;
  {
    std::lock_guard lock(registry().mutex);
    cleanups = registry().cleanups;
  }
  if (!cleanups.empty())
    std::fprintf(stderr, "\n[txprop] %s: removing what this run created on its targets\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  for (auto& [id, cleanup] : cleanups) {
    try {
      cleanup();
    } catch (...) {
    }
  }
  std::fflush(stderr);
  // Die of the signal, as without txprop (the shell reports 128 + signal).
  signal(sig, SIG_DFL);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  _exit(128 + sig);
}

const bool installed = [] {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread(signal_thread).detach();
  return true;
}();

}  // namespace

int register_cleanup(std::function<void()> cleanup) {
  (void)installed;
  std::lock_guard lock(registry().mutex);
  const int id = registry().next++;
  registry().cleanups[id] = std::move(cleanup);
  return id;
}

void unregister_cleanup(int id) {
  std::lock_guard lock(registry().mutex);
  registry().cleanups.erase(id);
}

std::optional<long> left_by_dead_process(const std::string& name) {
  // txprop_<pid>_<4 hex host><4 hex random>
  if (!name.starts_with("txprop_")) return std::nullopt;
  const auto underscore = name.find('_', 7);
  if (underscore == std::string::npos || underscore == 7 || name.size() != underscore + 9) return std::nullopt;
  long pid = 0;
  for (std::size_t i = 7; i < underscore; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i])) || i - 7 > 9) return std::nullopt;
    pid = pid * 10 + (name[i] - '0');
  }
  const std::string suffix = name.substr(underscore + 1);
  if (suffix.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
  if (suffix.substr(0, 4) != host_marker()) return std::nullopt;
  if (pid <= 0 || pid == static_cast<long>(::getpid())) return std::nullopt;
  if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) return std::nullopt;  // alive
  return pid;
}

std::string host_marker() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (const char* c = host; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 16777619u;
  return fmt::format("{:04x}", (h ^ (h >> 16)) & 0xffff);
}

std::string reclaimed_line(const std::string& where, const std::string& what, long pid) {
  return fmt::format("[txprop] target {}: reclaimed {} left by process {}, which no longer exists on this host\n", where,
                     what, pid);
}

}  // namespace txprop::drivers
