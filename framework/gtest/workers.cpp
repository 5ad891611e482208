#include "workers.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "progress.hpp"
#include "run_summary.hpp"
#include "shards.hpp"
#include "summary_json.hpp"
#include "summary_shards.hpp"

extern char** environ;

namespace txprop::workers {

namespace {

constexpr const char* kStopFile = "TXPROP_WORKER_STOP_FILE";
constexpr const char* kProgressFile = "TXPROP_WORKER_PROGRESS_FILE";

const std::string& stop_file() {
  static const std::string path = [] {
    const char* v = std::getenv(kStopFile);
    return std::string(v ? v : "");
  }();
  return path;
}

const std::string& progress_file() {
  static const std::string path = [] {
    const char* v = std::getenv(kProgressFile);
    return std::string(v ? v : "");
  }();
  return path;
}

std::string current_test_name() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? std::string(info->test_suite_name()) + "." + info->name() : std::string();
}

std::string self_exe() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

// One worker process: its shard, where it writes, and how it ended.
struct Worker {
  int index = 0;
  pid_t pid = -1;
  int status = 0;
  bool done = false;
  std::string records, output, progress;  // its TXPROP_SUMMARY_FILE, its stdout and its progress snapshot
};

// The environment of worker `w`: this process's, with the shard, the suite's cases and seed, its own record file
// and the stop file; GoogleTest's XML output stays the parent's (a worker would overwrite it).
std::vector<std::string> worker_environment(const Plan& plan, const Worker& w, const std::string& stop) {
  std::vector<std::string> env =
      environment_without({"TXPROP_JOBS", "TXPROP_CASES", "TXPROP_SEED", "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX",
                           "TXPROP_SUMMARY_FILE", kStopFile, kProgressFile, "GTEST_OUTPUT", "XML_OUTPUT_FILE"});
  env.push_back("TXPROP_JOBS=1");
  env.push_back(fmt::format("TXPROP_CASES={}", plan.cases));
  env.push_back(fmt::format("TXPROP_SEED={}", plan.seed));
  env.push_back(fmt::format("GTEST_TOTAL_SHARDS={}", plan.jobs));
  env.push_back(fmt::format("GTEST_SHARD_INDEX={}", w.index));
  env.push_back("TXPROP_SUMMARY_FILE=" + w.records);
  env.push_back(std::string(kStopFile) + "=" + stop);
  env.push_back(std::string(kProgressFile) + "=" + w.progress);
  return env;
}

void spawn(const Plan& plan, Worker& w, const std::string& exe, const std::string& test, const std::string& stop) {
  std::vector<std::string> args = {exe, "--gtest_filter=" + test, "--gtest_also_run_disabled_tests"};
  std::vector<std::string> env = worker_environment(plan, w, stop);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int out = ::open(w.output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0) throw std::runtime_error(fmt::format("txprop: cannot create {}: {}", w.output, std::strerror(errno)));
  const pid_t parent = ::getpid();
  w.pid = ::fork();
  if (w.pid == 0) {
    // Only async-signal-safe calls until exec. A worker ends with its parent (a ctest timeout, a kill): SIGTERM makes
    // it drop its test database like any run (engines/cleanup.hpp).
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(out, STDOUT_FILENO);
    ::execve(exe.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out);
  if (w.pid < 0) throw std::runtime_error(fmt::format("txprop: cannot start a worker: {}", std::strerror(errno)));
}

void touch(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) ::close(fd);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One line for the union of the workers' progress snapshots, as one process would print it (progress.hpp).
void print_progress(const std::vector<Worker>& workers, const Plan& plan, double seconds) {
  ProgressSnapshot sum;
  for (const Worker& w : workers) sum += ProgressSnapshot::parse(read_file(w.progress));
  const std::string line =
      progress_line(fmt::format("{}/{} ({} workers)", plan.property, plan.suite, plan.jobs), plan.cases, sum, seconds);
  std::cerr << line << "\n";
  run_summary::progress(line);
}

// Waits for every worker, printing their progress every few seconds; the first that fails (or dies) stops the others
// through the stop file.
void wait_all(std::vector<Worker>& workers, const std::string& stop, const Plan& plan) {
  const auto start = std::chrono::steady_clock::now();
  auto last_print = start;
  for (std::size_t left = workers.size(); left > 0;) {
    for (Worker& w : workers) {
      if (w.done || ::waitpid(w.pid, &w.status, WNOHANG) != w.pid) continue;
      w.done = true;
      --left;
      if (!(WIFEXITED(w.status) && WEXITSTATUS(w.status) == 0)) touch(stop);
    }
    if (left == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (const auto now = std::chrono::steady_clock::now(); now - last_print >= std::chrono::seconds(5)) {
      last_print = now;
      print_progress(workers, plan, std::chrono::duration<double>(now - start).count());
    }
  }
}

std::string ended(const Worker& w) {
  if (WIFEXITED(w.status)) return fmt::format("exit status {}", WEXITSTATUS(w.status));
  if (WIFSIGNALED(w.status)) return fmt::format("killed by signal {}", WTERMSIG(w.status));
  return "ended";
}

// The suite's result from the merged record of the workers (summary_shards.hpp), seconds being the wall time.
PropertyResult from_record(const records::Json& m, const Plan& plan, double seconds) {
  PropertyResult r;
  r.cases = static_cast<int>(m.num("cases"));
  r.inconclusive = static_cast<int>(m.num("inconclusive"));
  r.shrink_steps = static_cast<int>(m.num("shrink_steps"));
  r.shrink_attempts = static_cast<int>(m.num("shrink_attempts"));
  r.seconds = seconds;
  r.reset_seconds = m.num("reset_seconds");
  r.seed = plan.seed;
  for (const Standing standing : {Standing::Documented, Standing::Allowed})
    for (const records::Json& e : m.list(std::string(to_string(standing))))
      r.counted[standing][e.str("kind")] = {static_cast<int>(e.num("cases")), e.str("source")};
  for (const records::Json& e : m.list("tags")) r.tags[e.str("tag")] = static_cast<int>(e.num("cases"));
  const std::string status = m.str("status");
  if (status == "passed") return r;
  r.failed = true;
  if (const std::string finding = m.str("finding"); !finding.empty()) {
    Verdict v;
    v.property = plan.property;
    Finding f;
    f.kind = finding;
    f.standing = status == "deviation" ? Standing::Deviation : Standing::Fails;
    v.findings.push_back(std::move(f));
    r.verdict = std::move(v);
  }
  r.report_dir = m.str("report");
  return r;
}

// What the failing worker said, and how to run its cases alone.
std::string failure_message(const records::Json& failing, const Plan& plan, const std::string& exe,
                            const std::string& test) {
  std::string msg = failing.str("details", failing.str("message"));
  if (!msg.empty() && msg.back() != '\n') msg += '\n';
  const std::string shard = failing.str("shard");
  int index = 0;
  try {
    index = std::stoi(shard.substr(0, shard.find('/')));
  } catch (const std::exception&) {
  }
  const int cases = shards::cases_of(plan.cases, shards::Shard{index, plan.jobs});
  msg += fmt::format(
      "found by worker {} of TXPROP_JOBS={} (seed {}, {} of the suite's {} cases); that worker's cases alone:\n"
      "  TXPROP_JOBS=1 TXPROP_SEED={} TXPROP_CASES={} {} --gtest_filter={}\n",
      shard, plan.jobs, failing.str("seed"), cases, plan.cases, failing.str("seed"), cases, exe, test);
  return msg;
}

// The workers' records, merged; what went wrong when a worker left none.
PropertyResult collect(const std::vector<Worker>& workers, const Plan& plan, double seconds, const std::string& exe,
                       const std::string& test) {
  std::vector<records::Json> records;
  std::optional<records::Json> failing;  // the record of the first worker (by index) that did not pass
  std::string problems, target_lost;
  for (const Worker& w : workers) {
    std::istringstream lines(read_file(w.records));
    bool any = false;
    for (std::string line; std::getline(lines, line);) {
      if (line.empty()) continue;
      try {
        records.push_back(records::Parser(line).parse());
      } catch (const std::exception& e) {
        problems += fmt::format("worker {}/{}: unreadable record ({})\n", w.index, plan.jobs, e.what());
        continue;
      }
      any = true;
      if (!failing && records.back().str("status") != "passed") failing = records.back();
      if (target_lost.empty()) target_lost = records.back().str("target_lost");
    }
    if (!any)
      problems += fmt::format("worker {}/{} left no record ({}); its output:\n{}\n", w.index, plan.jobs, ended(w),
                              read_file(w.output));
  }
  records::ShardMerge merged = records::merge_shards(std::move(records));
  for (const std::string& m : merged.missing) problems += m + "\n";
  PropertyResult r;
  if (merged.records.size() == 1) r = from_record(merged.records.front(), plan, seconds);
  r.target_lost = target_lost;
  if (!problems.empty() || merged.records.size() != 1) {
    r.failed = true;
    r.message = fmt::format("txprop: {}/{}: the workers of TXPROP_JOBS={} did not all report:\n{}", plan.property,
                            plan.suite, plan.jobs, problems);
  } else if (r.failed && failing) {
    r.message = failure_message(*failing, plan, exe, test);
  }
  return r;
}

}  // namespace

bool is_worker() { return !stop_file().empty(); }

bool stop_requested() { return is_worker() && ::access(stop_file().c_str(), F_OK) == 0; }

void request_stop() {
  if (is_worker()) touch(stop_file());
}

void report_progress(const std::string& snapshot) {
  if (progress_file().empty()) return;
  // Written aside and renamed, so the suite's process never reads half a snapshot.
  const std::string aside = progress_file() + ".new";
  {
    std::ofstream out(aside, std::ios::trunc);
    out << snapshot;
    if (!out) return;  // a snapshot that cannot be written leaves the previous one: progress only, not a result
  }
  std::error_code ec;
  std::filesystem::rename(aside, progress_file(), ec);
}

bool can_split() {
  const char* rc = std::getenv("RC_PARAMS");
  return !current_test_name().empty() && !self_exe().empty() &&
         !(rc && std::string(rc).find("reproduce=") != std::string::npos);
}

PropertyResult run(const Plan& plan) {
  const std::string exe = self_exe(), test = current_test_name();
  std::string dir = (std::filesystem::temp_directory_path() / "txprop-workers-XXXXXX").string();
  if (!::mkdtemp(dir.data())) throw std::runtime_error(fmt::format("txprop: cannot create {}: {}", dir, std::strerror(errno)));
  const std::string stop = dir + "/stop";
  std::vector<Worker> workers(static_cast<std::size_t>(plan.jobs));
  const auto start = std::chrono::steady_clock::now();
  try {
    for (int k = 0; k < plan.jobs; ++k) {
      Worker& w = workers[static_cast<std::size_t>(k)];
      w.index = k;
      w.records = fmt::format("{}/worker-{}.jsonl", dir, k);
      w.output = fmt::format("{}/worker-{}.out", dir, k);
      w.progress = fmt::format("{}/worker-{}.progress", dir, k);
      spawn(plan, w, exe, test, stop);
    }
  } catch (...) {
    touch(stop);  // the workers already started run no further case
    std::erase_if(workers, [](const Worker& w) { return w.pid <= 0; });
    wait_all(workers, stop, plan);
    throw;
  }
  wait_all(workers, stop, plan);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  PropertyResult r = collect(workers, plan, seconds, exe, test);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return r;
}

std::vector<std::string> environment_without(std::initializer_list<std::string_view> dropped) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string_view key = std::string_view(entry).substr(0, entry.find('='));
    bool drop = false;
    for (std::string_view d : dropped) drop = drop || key == d;
    if (!drop) env.push_back(entry);
  }
  return env;
}

}  // namespace txprop::workers
