#include "shrink_helpers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "txprop/generators.hpp"
#include "txprop/scenario.hpp"
#include "workers.hpp"

namespace txprop::shrink_helpers {

namespace {

constexpr const char* kHelper = "TXPROP_SHRINK_HELPER";  // the property/suite id a helper judges for
constexpr int kRequests = 3, kAnswers = 4;               // a helper's pipe ends, as the parent places them

// A case as the text sent to a helper, and back. Outside the scenario's fixed levels, every transaction is at the
// level its `levels:` line names.
std::string encode(const TestCase& c) { return write_scenario(scenario_from_test_case(c, "shrink-candidate")); }

TestCase decode(const std::string& text, IsolationLevel level) {
  const Scenario s = parse_scenario(text, "<shrink candidate>");
  return s.test_case(s.levels.empty() ? level : s.levels.front());
}

// A scenario names the transactions in the order they first appear in the submitted order (T0 begins first), so its
// case may number them otherwise than the case it was written from. perm[t]: the number transaction t gets there.
std::vector<int> first_appearance(const TestCase& c) {
  std::vector<int> perm(c.transactions.size(), -1);
  int next = 0;
  for (int t : c.order)
    if (t >= 0 && static_cast<std::size_t>(t) < perm.size() && perm[static_cast<std::size_t>(t)] < 0)
      perm[static_cast<std::size_t>(t)] = next++;
  for (int& p : perm)
    if (p < 0) p = next++;
  return perm;
}

// The case read back with its transactions numbered as in the case it was written from (perm as above).
TestCase relabel(const TestCase& read, const std::vector<int>& perm) {
  if (perm.size() != read.transactions.size()) throw std::runtime_error("shrink helper: transaction count differs");
  TestCase c = read;
  std::vector<int> back(perm.size());
  for (std::size_t t = 0; t < perm.size(); ++t) {
    const auto p = static_cast<std::size_t>(perm[t]);
    if (p >= perm.size()) throw std::runtime_error("shrink helper: bad transaction number");
    c.transactions[t] = read.transactions[p];
    back[p] = static_cast<int>(t);
  }
  for (int& t : c.order) t = back.at(static_cast<std::size_t>(t));
  return c;
}

void ignore_sigpipe() {
  struct sigaction old {};
  if (::sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);
}

bool write_all(int fd, const std::string& data) {
  for (std::size_t done = 0; done < data.size();) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads up to and including the next '\n' into `line` (without it), keeping what follows in `buffer`. False at EOF.
bool read_line(int fd, std::string& buffer, std::string& line) {
  for (;;) {
    if (const std::size_t nl = buffer.find('\n'); nl != std::string::npos) {
      line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      return true;
    }
    char chunk[4096];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

bool read_exactly(int fd, std::string& buffer, std::size_t size, std::string& out) {
  while (buffer.size() < size) {
    char chunk[4096];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
  out = buffer.substr(0, size);
  buffer.erase(0, size);
  return true;
}

char letter(Judged j) { return j == Judged::Pass ? 'P' : j == Judged::Fail ? 'F' : 'U'; }

std::string current_test_name() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? std::string(info->test_suite_name()) + "." + info->name() : std::string();
}

// How this program was started: the same GoogleTest test, or (outside GoogleTest: a benchmark) the same arguments.
std::vector<std::string> helper_arguments(const std::string& exe) {
  if (const std::string test = current_test_name(); !test.empty())
    return {exe, "--gtest_filter=" + test, "--gtest_also_run_disabled_tests"};
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
  if (args.empty()) args.push_back(exe);
  args[0] = exe;
  return args;
}

// This process's environment without what makes a worker, a shard or a record writer, as one helper of `id`.
std::vector<std::string> helper_environment(const std::string& id) {
  std::vector<std::string> env = workers::environment_without(
      {"TXPROP_JOBS", "TXPROP_SHRINK_JOBS", "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "TXPROP_SUMMARY_FILE",
       "TXPROP_WORKER_STOP_FILE", "TXPROP_WORKER_PROGRESS_FILE", "TXPROP_PROGRESS", "GTEST_OUTPUT", "XML_OUTPUT_FILE",
       kHelper});
  env.push_back(std::string(kHelper) + "=" + id);
  return env;
}

}  // namespace

bool is_helper() { return std::getenv(kHelper) != nullptr; }

bool serve(const std::string& id, IsolationLevel level, const std::function<Judged(const TestCase&)>& judge) {
  static bool served = false;
  const char* wanted = std::getenv(kHelper);
  if (!wanted || served || id != wanted) return false;
  served = true;
  ignore_sigpipe();  // a parent that stopped shrinking closed the pipe: the answer's write fails, and the helper ends
  if (!write_all(kAnswers, "R\n")) return true;
  std::string buffer, header, text;
  // A request: "<generation> <bytes> <perm>\n" and the case's scenario text (its transactions numbered as perm says,
  // relabel()); the answer: "<generation> P|F|U\n".
  while (read_line(kRequests, buffer, header)) {
    int generation = 0;
    std::size_t size = 0;
    char numbers[4096] = "";
    if (std::sscanf(header.c_str(), "%d %zu %4095s", &generation, &size, numbers) < 2 ||
        !read_exactly(kRequests, buffer, size, text))
      break;
    Judged j = Judged::Unknown;
    try {
      std::vector<int> perm;
      std::istringstream in(numbers);
      for (std::string n; std::getline(in, n, ',');) perm.push_back(std::stoi(n));
      j = judge(relabel(decode(text, level), perm));
    } catch (const std::exception&) {
      j = Judged::Unknown;  // the parent judges it itself
    }
    if (!write_all(kAnswers, fmt::format("{} {}\n", generation, letter(j)))) break;
  }
  return true;
}

struct Pool::Helper {
  pid_t pid = -1;
  int to = -1, from = -1;  // the request pipe's write end, the answer pipe's read end
  bool ready = false, dead = false, busy = false;
  int generation = -1;
  std::size_t index = 0;
  std::string buffer;
};

Pool::Pool(int helpers, std::string id, IsolationLevel level) : wanted_(helpers), id_(std::move(id)), level_(level) {}

Pool::~Pool() {
  // A closed request pipe ends a helper's loop: it drops its database and exits.
  for (auto& h : helpers_) {
    if (h->to >= 0) ::close(h->to);
    if (h->from >= 0) ::close(h->from);
  }
  // One still judging a case ends when the case does; past a second it is terminated (its database is dropped on
  // SIGTERM, engines/cleanup.hpp).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (auto& h : helpers_) {
    if (h->pid <= 0) continue;
    while (::waitpid(h->pid, nullptr, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        continue;
      }
      ::kill(h->pid, SIGTERM);
      ::waitpid(h->pid, nullptr, 0);
      break;
    }
  }
}

void Pool::start() {
  if (started_) return;
  started_ = true;
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec || wanted_ < 1) return;
  ignore_sigpipe();  // a helper that died must not kill this process through a write to its pipe
  const std::vector<std::string> args = helper_arguments(exe), env = helper_environment(id_);
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  for (int k = 0; k < wanted_; ++k) {
    int requests[2], answers[2];
    if (::pipe2(requests, O_CLOEXEC) != 0) return;
    if (::pipe2(answers, O_CLOEXEC) != 0) {
      ::close(requests[0]);
      ::close(requests[1]);
      return;
    }
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    const pid_t pid = ::fork();
    if (pid == 0) {
      // Only async-signal-safe calls until exec; a helper ends with its parent.
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) ::_exit(127);
      ::dup2(requests[0], kRequests);
      ::dup2(answers[1], kAnswers);
      if (null >= 0) {
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
      }
      ::execve(exe.c_str(), argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(requests[0]);
    ::close(answers[1]);
    if (null >= 0) ::close(null);
    auto h = std::make_unique<Helper>();
    h->pid = pid;
    h->to = requests[1];
    h->from = answers[0];
    h->dead = pid < 0;
    helpers_.push_back(std::move(h));
  }
}

void Pool::failed(const TestCase& c) {
  start();
  ++generation_;
  candidates_ = gen::shrink_test_case(c);
  judged_.assign(candidates_.size(), Judged::Unknown);
  judged_by_.assign(candidates_.size(), -1);
  cursor_ = 0;
}

std::size_t Pool::find(const TestCase& c) const {
  for (std::size_t i = cursor_; i < candidates_.size(); ++i)
    if (candidates_[i] == c) return i;
  for (std::size_t i = 0; i < cursor_ && i < candidates_.size(); ++i)
    if (candidates_[i] == c) return i;
  return candidates_.size();
}

// Reads what a helper said: "R" (ready), or its answer. With `wait`, blocks for one line.
void Pool::collect(Helper& h, bool wait) {
  if (h.dead) return;
  pollfd p{h.from, POLLIN, 0};
  if (!wait && h.buffer.find('\n') == std::string::npos && (::poll(&p, 1, 0) <= 0)) return;
  std::string line;
  if (!read_line(h.from, h.buffer, line)) {
    h.dead = true;
    if (h.busy && h.generation == generation_ && judged_[h.index] == Judged::Pending) judged_[h.index] = Judged::Unknown;
    return;
  }
  if (line == "R") {
    h.ready = true;
    return;
  }
  int generation = -1;
  char answer = 'U';
  if (std::sscanf(line.c_str(), "%d %c", &generation, &answer) != 2) answer = 'U';
  h.busy = false;
  if (generation != generation_ || h.generation != generation_ || judged_[h.index] != Judged::Pending) return;
  judged_[h.index] = answer == 'P' ? Judged::Pass : answer == 'F' ? Judged::Fail : Judged::Unknown;
  judged_by_[h.index] = -2;  // judged (or given back): never handed out again
}

// Gives each idle helper the next candidate from `from` on that nobody judges yet and whose text reads back equal.
void Pool::hand_out(std::size_t from) {
  std::size_t next = from;
  for (std::size_t k = 0; k < helpers_.size(); ++k) {
    Helper& h = *helpers_[k];
    if (h.dead || !h.ready || h.busy) continue;
    for (; next < candidates_.size(); ++next) {
      if (judged_[next] != Judged::Unknown || judged_by_[next] != -1) continue;
      judged_by_[next] = -2;  // tried: a case whose text does not read back equal stays with this process
      std::string text;
      std::vector<int> perm;
      try {
        text = encode(candidates_[next]);
        perm = first_appearance(candidates_[next]);
        if (!(relabel(decode(text, level_), perm) == candidates_[next])) continue;
      } catch (const std::exception&) {
        continue;
      }
      if (!write_all(h.to, fmt::format("{} {} {}\n", generation_, text.size(), fmt::join(perm, ",")) + text)) {
        h.dead = true;
        break;
      }
      h.busy = true;
      h.generation = generation_;
      h.index = next;
      judged_[next] = Judged::Pending;
      judged_by_[next] = static_cast<int>(k);
      ++next;
      break;
    }
  }
}

bool Pool::known_to_pass(const TestCase& c) {
  if (candidates_.empty()) return false;
  for (auto& h : helpers_) collect(*h, false);
  const std::size_t i = find(c);
  if (i == candidates_.size()) return false;  // not a candidate of the last failing case: judged here
  cursor_ = i + 1;
  while (judged_[i] == Judged::Pending) {
    Helper& h = *helpers_[static_cast<std::size_t>(judged_by_[i])];
    collect(h, true);
    if (h.dead) judged_[i] = Judged::Unknown;
  }
  hand_out(cursor_);
  if (judged_[i] != Judged::Pass) return false;
  ++answered_;
  return true;
}

}  // namespace txprop::shrink_helpers
