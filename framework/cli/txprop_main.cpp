// The txprop command: replay a scenario file by hand and see what happened.
//
//   txprop replay <file.txn> [--target URI] [--level LEVEL] [--repeat N] [--property NAME]
//   txprop check  <file.txn>...           replay with every expectation checked, on every configured target
//
// The target defaults to the first one in TXPROP_TARGETS that the scenario applies to.
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "txprop/oracle.hpp"
#include "txprop/scenario.hpp"
#include "txprop/scenario_runner.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"

using namespace txprop;

namespace {

int usage() {
  std::cerr << "usage: txprop replay <file.txn> [--target URI] [--level LEVEL] [--repeat N] [--property NAME]\n"
               "       txprop check <file.txn>...\n";
  return 2;
}

int replay(const std::vector<std::string>& args) {
  std::string file, uri, property;
  std::optional<IsolationLevel> level;
  int repeat = 1;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(args[i] + " needs a value");
      return args[++i];
    };
    if (args[i] == "--target") uri = value();
    else if (args[i] == "--level") {
      const std::string v = value();
      level = parse_isolation_level(v);
      if (!level) throw std::invalid_argument("unknown isolation level '" + v + "'");
    } else if (args[i] == "--repeat") repeat = std::max(1, std::atoi(value().c_str()));
    else if (args[i] == "--property") property = value();
    else if (file.empty()) file = args[i];
    else throw std::invalid_argument("unexpected argument '" + args[i] + "'");
  }
  if (file.empty()) return usage();
  const Scenario s = load_scenario(file, registered_vocabulary());
  TargetConfig config;
  if (!uri.empty()) {
    config = parse_target_uri(uri);
  } else {
    bool found = false;
    for (const auto& c : configured_targets())
      if (s.applies_to(c.kind)) {
        config = c;
        found = true;
        break;
      }
    if (!found) throw TargetError("txprop: no configured target (TXPROP_TARGETS) is one the scenario applies to");
  }
  auto target = Target::open(config);
  std::vector<IsolationLevel> levels = level ? std::vector<IsolationLevel>{*level}
                                             : (s.levels.empty() ? config.levels : s.levels);
  std::map<std::string, int> outcomes;
  for (IsolationLevel l : levels) {
    const TestCase c = s.test_case(l);
    for (int r = 0; r < repeat; ++r) {
      if (!property.empty()) {
        const Oracle& p = oracle(property);
        const History h = target->run(p.prepare(c, target->engine()));
        const Verdict v = p.judge(*target, h);
        const std::string key = fmt::format("{} {}", short_name(l), v.summary());
        // Show the history and verdict of the first run of each kind of outcome.
        if (outcomes[key]++ == 0 && (repeat == 1 || !v.ok()))
          std::cout << "== " << sql_name(l) << "\n" << describe(h) << v.explain() << "\n";
        continue;
      }
      const History h = target->run(c);
      if (repeat == 1 || r == 0) std::cout << "== " << sql_name(l) << "\n" << describe(h);
      std::string fates;
      for (const auto& t : h.transactions) fates += " " + to_string(t.fate);
      ++outcomes[fmt::format("{}:{}", short_name(l), fates)];
    }
  }
  if (repeat > 1)
    for (const auto& [o, n] : outcomes) std::cout << fmt::format("{:>5}x  {}\n", n, o);
  return 0;
}

int check(const std::vector<std::string>& files) {
  int failures = 0;
  for (const auto& file : files) {
    const Scenario s = load_scenario(file, registered_vocabulary());
    for (const auto& config : configured_targets()) {
      if (!s.applies_to(config.kind)) continue;
      auto target = Target::open(config);
      const std::string problems = replay_scenario(s, *target);
      std::cout << fmt::format("{} on {}: {}\n", file, config.name, problems.empty() ? "as expected" : "MISMATCH");
      if (!problems.empty()) {
        std::cout << problems;
        ++failures;
      }
    }
  }
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "replay") return replay(args);
    if (command == "check") return check(args);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return usage();
}
