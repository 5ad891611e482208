#include "counterexample_report.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "txprop/scenario.hpp"
#include "txprop/engine.hpp"
#include "txprop/sql.hpp"

extern char** environ;

namespace txprop::report {

namespace fs = std::filesystem;

namespace {

// Runs Graphviz's `dot` directly (no shell: the paths are arguments, never command text), output and errors to
// /dev/null, and waits at most 10 s for it. Does nothing where dot is not installed.
void render_svg(const fs::path& dot, const fs::path& svg) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  const std::string in = dot.string(), out = svg.string();
  std::vector<char*> argv = {const_cast<char*>("dot"), const_cast<char*>("-Tsvg"), const_cast<char*>(in.c_str()),
                             const_cast<char*>("-o"), const_cast<char*>(out.c_str()), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "dot", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return;
  for (int waited_ms = 0;; waited_ms += 10) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) != 0) return;
    if (waited_ms >= 10000) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return;
    }
    usleep(10000);
  }
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("txprop: cannot write " + path.string());
}

std::string scenario_text(const Counterexample& c) {
  Scenario s = scenario_from_test_case(c.scenario_case ? *c.scenario_case : c.history.test_case,
                                       c.property + "-" + c.suite);
  s.source = fmt::format("txprop {} counterexample on {} ({}{})", c.property, c.suite, c.history.server_version,
                         c.reproduce.empty() ? "" : "; " + c.reproduce);
  s.applies = {c.target.kind};
  // The scenario names the oracle that judged, so that replays judge the same way; a property that judged itself is
  // named after itself (and replays only where it is registered as an oracle).
  const std::string property = !c.oracle.empty() ? c.oracle : [&] {
    std::string p;
    for (char ch : c.property) p += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return p;
  }();
  for (const Finding& f : c.verdict.findings)
    if (!f.documented() && f.kind != "assertion") {  // not a plain RC_ASSERT, which no oracle reports
      Expectation e;
      e.property = property;
      e.target = c.target.kind;
      e.level = c.level;
      e.verdict = f.kind;
      s.expectations.push_back(std::move(e));
      break;
    }
  return write_scenario(s);
}

// One script per connection (its transactions one after the other), in the engine's dialect, each step annotated
// with its place in the submitted order. Autocommit statements are written alone, without BEGIN and COMMIT.
std::string connection_script(const Counterexample& c, const std::vector<int>& txns, Dialect d) {
  const TestCase& tc = c.history.test_case;
  std::string names;
  for (int t : txns) names += fmt::format("{}T{}", names.empty() ? "" : ", ", t);
  std::string out = fmt::format("-- {} of {}: run the steps in the order of the step numbers across the scripts.\n",
                                names, c.property);
  std::optional<IsolationLevel> level;
  int n = 0;
  for (const StepRef& ref : tc.submitted_steps()) {
    ++n;
    if (std::find(txns.begin(), txns.end(), ref.txn) == txns.end()) continue;
    const Transaction& t = tc.transactions[static_cast<std::size_t>(ref.txn)];
    const Statement step = t.step(static_cast<std::size_t>(ref.index));
    if (ref.index == 0 && level != t.isolation) {
      if (auto set = render_set_isolation(t.isolation, d); !set.empty()) out += set + ";\n";
      level = t.isolation;
    }
    if (t.autocommit && step.is_transaction_control()) continue;
    const Outcome& o = c.history.outcome(ref);
    const bool blocked = c.history.was_blocked[static_cast<std::size_t>(ref.txn)][static_cast<std::size_t>(ref.index)];
    out += fmt::format("/* step {:>2} */ {};  -- {}{}\n", n, render(step, d), blocked ? "blocks, then " : "", summary(o));
  }
  return out;
}

std::string timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

}  // namespace

std::string describe(const Counterexample& c) {
  std::string out = fmt::format("{} {} on {} at {} ({})\n", c.property,
                                c.verdict.only_deviations() ? "found a documented deviation" : "failed",
                                c.target.masked_uri(), sql_name(c.level), c.history.server_version);
  if (c.scenario_case && *c.scenario_case != c.history.test_case) {
    out += "-- the case as generated (portable SQL):\n" + txprop::describe(*c.scenario_case);
    out += "-- " + (c.preparation.empty() ? std::string("it ran prepared for the property") : c.preparation) + ":\n";
  } else {
    out += "-- the case (portable SQL):\n" + txprop::describe(c.history.test_case);
  }
  out += txprop::describe(c.history);
  out += c.verdict.explain();
  return out;
}

std::string write_report(const Counterexample& c, const std::string& base_dir) {
  fs::path dir = fs::path(base_dir) / fmt::format("{}-{}-{}", c.property, c.suite, timestamp());
  for (int i = 2; fs::exists(dir); ++i) dir = fs::path(base_dir) / fmt::format("{}-{}-{}-{}", c.property, c.suite, timestamp(), i);
  fs::create_directories(dir);
  const Dialect d = c.target.profile().dialect();
  write_file(dir / "summary.txt", describe(c));
  write_file(dir / "scenario.txn", scenario_text(c));
  std::string setup;
  for (const auto& s : render_setup(c.history.test_case.schema, d)) setup += s + ";\n";
  write_file(dir / "setup.sql", setup);
  // T<i>.sql for a connection that runs one transaction (every generated case), C<k>.sql for one that runs several.
  const auto connections = c.history.test_case.sessions();
  for (std::size_t k = 0; k < connections.size(); ++k)
    write_file(dir / (connections[k].size() == 1 ? fmt::format("T{}.sql", connections[k].front())
                                                 : fmt::format("C{}.sql", k)),
               connection_script(c, connections[k], d));
  for (const auto& [name, content] : c.verdict.attachments) write_file(dir / name, content);
  int graph = 0;
  for (const Finding& f : c.verdict.findings) {
    if (f.graph_dot.empty()) continue;
    const fs::path dot = dir / fmt::format("graph{}.dot", graph ? std::to_string(graph) : "");
    write_file(dot, f.graph_dot);
    ++graph;
    // An SVG next to it where Graphviz is installed; the DOT file is the artefact either way.
    render_svg(dot, fs::path(dot).replace_extension(".svg"));
  }
  return dir.string();
}

}  // namespace txprop::report
