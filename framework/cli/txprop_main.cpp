// The txprop command: replay a scenario file by hand and see what happened.
//
//   txprop replay <file.txn> [--target URI] [--level LEVEL] [--repeat N] [--property NAME]
//   txprop check  <file.txn>...           replay with every expectation checked, on every configured target
//   txprop summary <records.jsonl>        the table of what a run checked (scripts/main.sh), optionally JUnit XML
//   txprop targets                        the configured TXPROP_TARGETS with every secret masked, for scripts to print
//
// replay judges with --property, else with the properties the scenario's expectations name for the target and
// level (else it checks that the run finishes cleanly); transactions keep the scenario's names. replay and check
// exit 1 when a verdict fails, an expectation is not met, or nothing was checked, and say why.
// The target defaults to the first one in TXPROP_TARGETS that the scenario applies to.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "txprop/oracle.hpp"
#include "txprop/scenario.hpp"
#include "txprop/internal/scenario_runner.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"

using namespace txprop;

int summary_command(const std::vector<std::string>& args);  // summary_command.cpp

namespace {

int usage() {
  std::cerr << "usage: txprop replay <file.txn> [--target URI] [--level LEVEL] [--repeat N] [--property NAME]\n"
               "       txprop check <file.txn>...\n"
               "       txprop summary <records.jsonl> [--junit <file.xml>] [--title TEXT]\n"
               "       txprop targets\n";
  return 2;
}

std::string level_list(const std::vector<IsolationLevel>& levels) {
  std::string out;
  for (auto l : levels) out += (out.empty() ? "" : ", ") + sql_name(l);
  return out;
}

struct ReplayArguments {
  std::string file, uri, property;
  std::optional<IsolationLevel> level;
  int repeat = 1;
};

// --repeat takes a whole number from 1: anything else is refused, never clamped.
int parse_repeat(const std::string& v) {
  std::size_t used = 0;
  long n = 0;
  try {
    n = std::stol(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty() || n < 1 || n > 1'000'000)
    throw std::invalid_argument("--repeat needs a whole number from 1 to 1000000, not '" + v + "'");
  return static_cast<int>(n);
}

ReplayArguments parse_replay_arguments(const std::vector<std::string>& args) {
  ReplayArguments a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(args[i] + " needs a value");
      return args[++i];
    };
    if (args[i] == "--target") a.uri = value();
    else if (args[i] == "--level") {
      const std::string v = value();
      a.level = parse_isolation_level(v);
      if (!a.level) throw std::invalid_argument("unknown isolation level '" + v + "'");
    } else if (args[i] == "--repeat") a.repeat = parse_repeat(value());
    else if (args[i] == "--property") a.property = value();
    else if (a.file.empty()) a.file = args[i];
    else throw std::invalid_argument("unexpected argument '" + args[i] + "'");
  }
  return a;
}

// --target, else the first configured target the scenario applies to.
TargetConfig replay_target(const ReplayArguments& a, const Scenario& s) {
  if (!a.uri.empty()) return parse_target_uri(a.uri);
  for (const auto& c : configured_targets())
    if (s.applies_to(c.kind)) return c;
  throw TargetError("txprop: no configured target (TXPROP_TARGETS) is one the scenario applies to");
}

// What the runs of one replay add up to.
struct ReplayTally {
  std::map<std::string, int> outcomes;  // a kind of outcome -> how many runs had it
  int runs = 0, failed = 0, unjudged = 0, refused = 0;  // refused: the oracle cannot judge the case
};

// No property to judge with: the run itself must finish cleanly.
void replay_unjudged(Target& target, const Scenario& s, const TestCase& c, IsolationLevel l, bool first,
                     ReplayTally& t) {
  const std::vector<std::string>& names = s.transaction_names;
  const History h = target.run(c);
  ++t.runs;
  if (first) std::cout << "== " << sql_name(l) << "\n" << describe(h, names);
  const Verdict run = run_verdict(h, target.dialect());
  const std::string problems = run.ok() ? std::string() : relabel(run.explain(), names, h.transactions.size());
  if (!problems.empty()) {
    ++t.failed;
    std::cout << problems;
  }
  std::string fates;
  const std::vector<std::string> labels = transaction_labels(names, h.transactions.size());
  for (std::size_t i = 0; i < h.transactions.size(); ++i)
    fates += fmt::format(" {}:{}", labels[i], to_string(h.transactions[i].fate));
  ++t.outcomes[fmt::format("{}:{}{}", short_name(l), fates, problems.empty() ? "" : " (run problem)")];
}

// One run judged by `p`, against the scenario's expectations for it (or, with --property, against the verdict).
void replay_judged(Target& target, const Scenario& s, const ReplayArguments& a, const TestCase& c, IsolationLevel l,
                   const Oracle& p, const std::string& name, const std::vector<Expectation>& expectations,
                   ReplayTally& t) {
  const std::vector<std::string>& names = s.transaction_names;
  // An oracle that cannot judge this shape of case (e.g. sdg and autocommit statements) runs nothing and fails.
  const Judgement j = judge_case(p, target, c, [&](const TestCase& prepared) { return target.run(prepared); });
  ++t.runs;
  if (!j.refused.empty()) {
    ++t.failed;
    ++t.refused;
    ++t.unjudged;
    std::cout << fmt::format("== {} ({})\n{}: {} cannot judge scenario '{}': {}\n", sql_name(l), name, a.file, name,
                             s.name, j.refused);
    return;
  }
  const History& h = j.history;
  const Verdict& v = j.verdict;
  bool bad = !a.property.empty() && v.fails();
  std::string expected;
  for (const Expectation& e : expectations) {
    const bool met = expectation_met(e, v, p);
    expected += fmt::format("-- expected {}{} {} ({}:{}): {}\n", name, e.negated ? " not" : "", e.verdict, a.file,
                            e.line, met ? "met" : "NOT MET");
    bad = bad || !met;
  }
  if (v.inconclusive) ++t.unjudged;
  if (bad) ++t.failed;
  const std::string key = fmt::format("{} {} {}{}", short_name(l), name, v.summary(), bad ? " (fails)" : "");
  // Show the history and verdict of the first run of each kind of outcome.
  if (t.outcomes[key]++ == 0 && (a.repeat == 1 || !v.ok()))
    std::cout << "== " << sql_name(l) << " (" << name << ")\n" << describe(h, names)
              << relabel(v.explain(), names, h.transactions.size()) << expected << "\n";
}

// The exit status, with one line on stderr saying why a replay failed or judged nothing.
int replay_result(const ReplayTally& t, bool chosen, const TargetConfig& config) {
  if (t.failed) {
    const std::string judged_failures =
        chosen ? "a verdict that is not documented behaviour" : "an expectation of the scenario or the run itself";
    const std::string why = t.refused == t.failed ? "the oracle cannot judge this scenario"
                            : t.refused ? fmt::format("{} because the oracle cannot judge this scenario, {} on {}",
                                                      t.refused, t.failed - t.refused, judged_failures)
                                        : judged_failures;
    std::cerr << fmt::format("txprop replay: {} of {} run(s) failed ({}) on {}\n", t.failed, t.runs, why,
                             config.masked_uri());
    return 1;
  }
  if (t.unjudged == t.runs) {
    std::cerr << fmt::format("txprop replay: no run got a verdict (inconclusive) on {}\n", config.masked_uri());
    return 1;
  }
  return 0;
}

int replay(const std::vector<std::string>& args) {
  const ReplayArguments a = parse_replay_arguments(args);
  if (a.file.empty()) return usage();
  const Scenario s = load_scenario(a.file, registered_vocabulary());
  const TargetConfig config = replay_target(a, s);
  const Oracle* chosen = a.property.empty() ? nullptr : &oracle(a.property);
  auto target = Target::open(config);
  if (const std::string why = s.version_mismatch(target->config().server_version_num); !why.empty()) {
    std::cerr << fmt::format("txprop replay: nothing replayed on {}: {}\n", config.masked_uri(), why);
    return 1;
  }
  std::vector<IsolationLevel> levels = a.level ? std::vector<IsolationLevel>{*a.level}
                                               : (s.levels.empty() ? config.levels : s.levels);
  const std::vector<IsolationLevel> wanted = levels;
  std::erase_if(levels, [&](IsolationLevel l) {
    return std::find(config.levels.begin(), config.levels.end(), l) == config.levels.end();
  });
  if (levels.empty()) {
    std::cerr << fmt::format("txprop replay: nothing replayed: {} is not tested at {} (its levels: {})\n",
                             config.masked_uri(), level_list(wanted), level_list(config.levels));
    return 1;
  }
  ReplayTally t;
  for (IsolationLevel l : levels) {
    const TestCase c = s.replay_case(l);
    // What judges the runs at this level: --property, else the properties the scenario's expectations name here.
    std::map<std::string, std::vector<Expectation>> judges;
    if (chosen) judges[a.property];
    else
      for (const Expectation& e : s.expectations)
        if (e.applies(config.kind, l, target->config().server_version_num, config.params))
          judges[e.property].push_back(e);
    for (int r = 0; r < a.repeat; ++r) {
      if (judges.empty()) replay_unjudged(*target, s, c, l, r == 0, t);
      for (const auto& [name, expectations] : judges) {
        const Oracle* p = chosen ? chosen : find_oracle(name);
        if (!p)
          throw std::invalid_argument(fmt::format("{}:{}: unknown property '{}'", a.file, expectations.front().line, name));
        replay_judged(*target, s, a, c, l, *p, name, expectations, t);
      }
    }
  }
  if (a.repeat > 1)
    for (const auto& [o, n] : t.outcomes) std::cout << fmt::format("{:>5}x  {}\n", n, o);
  return replay_result(t, chosen != nullptr, config);
}

int check(const std::vector<std::string>& files) {
  if (files.empty()) {
    std::cerr << "txprop check: no scenario file given: nothing checked\n";
    return usage();
  }
  const std::vector<TargetConfig> targets = configured_targets();
  std::string kinds;
  for (const auto& c : targets) kinds += (kinds.empty() ? "" : ", ") + c.kind;
  int failures = 0, unchecked = 0, checked = 0;
  for (const auto& file : files) {
    const Scenario s = load_scenario(file, registered_vocabulary());
    int runs = 0;
    for (const auto& config : targets) {
      if (!s.applies_to(config.kind)) continue;
      auto target = Target::open(config);
      if (const std::string why = s.version_mismatch(target->config().server_version_num); !why.empty()) {
        std::cout << fmt::format("{} on {}: skipped: {}\n", file, config.name, why);
        continue;
      }
      std::vector<IsolationLevel> levels;
      const std::string problems = replay_scenario(s, *target, &levels);
      if (levels.empty()) {
        std::cout << fmt::format("{} on {}: no level of the scenario is tested there (its levels: {})\n", file,
                                 config.name, level_list(config.levels));
        continue;
      }
      ++runs;
      std::cout << fmt::format("{} on {} at {}: {}\n", file, config.name, level_list(levels),
                               problems.empty() ? "as expected" : "MISMATCH");
      if (!problems.empty()) {
        std::cout << problems;
        ++failures;
      }
    }
    if (runs == 0) {
      std::string applies;
      for (const auto& a : s.applies) applies += (applies.empty() ? "" : ", ") + a;
      std::cout << fmt::format("{}: NOTHING CHECKED: it applies to {} and the configured targets are {} (TXPROP_TARGETS)\n",
                               file, applies.empty() ? "every target" : applies, kinds);
      ++unchecked;
    } else {
      ++checked;
    }
  }
  std::cout << fmt::format("txprop check: {} file(s) checked, {} mismatch(es), {} file(s) with nothing checked\n",
                           checked, failures, unchecked);
  return failures || unchecked ? 1 : 0;
}

}  // namespace

// The configured targets as the one masking function (masked_uri) shows them, space separated: scripts print this,
// never TXPROP_TARGETS itself (issue 23).
int targets_command() {
  std::string line;
  for (const TargetConfig& c : configured_targets()) line += (line.empty() ? "" : " ") + c.masked_uri();
  std::cout << line << "\n";
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "replay") return replay(args);
    if (command == "check") return check(args);
    if (command == "summary") return summary_command(args);
    if (command == "targets" && args.empty()) return targets_command();
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return usage();
}
