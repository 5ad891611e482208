#include "cleanup.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

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
std::mutex& creation_mutex() {
  static std::mutex* m = new std::mutex;  // never destroyed, like the registry
  return *m;
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
  creation_mutex().lock();  // never unlocked: the process dies of the signal below
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

CreationSection::CreationSection() { creation_mutex().lock(); }
CreationSection::~CreationSection() { creation_mutex().unlock(); }

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

bool is_reclaimable_name(const std::string& name) {
  // txprop_<pid>_<16 hex>
  if (!name.starts_with("txprop_")) return false;
  const auto underscore = name.find('_', 7);
  if (underscore == std::string::npos || underscore == 7 || underscore - 7 > 10) return false;
  if (name.find_first_not_of("0123456789", 7) != underscore) return false;
  const std::string random = name.substr(underscore + 1);
  return random.size() == 16 && random.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::optional<std::int64_t> ownership_key(const std::string& name) {
  if (!is_reclaimable_name(name)) return std::nullopt;
  return static_cast<std::int64_t>(std::stoull(name.substr(name.size() - 16), nullptr, 16));
}

std::string reclaimed_line(const std::string& where, const std::string& what) {
  return fmt::format("[txprop] target {}: reclaimed {}: no live session of the run that created it holds its lock\n",
                     where, what);
}

}  // namespace txprop::drivers
