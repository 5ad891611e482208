// txprop summary <records.jsonl>... [--junit <file.xml>] [--title TEXT]
//
// Reads the records the test programs append to TXPROP_SUMMARY_FILE (framework/gtest/run_summary.hpp) and prints
// what was checked: per suite, target and level the cases, seconds, findings the engine documents, failures with
// their report folder, cases without a verdict; then one total line. --junit also writes the same as JUnit XML.
// Several files (the shards of one campaign, framework/gtest/shards.hpp) are read as one: a suite's records from its
// shards are merged into one row (summary_shards.hpp), and a shard without a record is named.
// Exits 1 when a record failed, when a shard is missing, or when there is no record at all.
#include <algorithm>
#include <cstdio>
#include <tuple>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "../gtest/summary_json.hpp"
#include "../gtest/summary_shards.hpp"

namespace {

using txprop::records::Json;
using txprop::records::Parser;


std::string xml(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (c < 0x20 && c != '\n' && c != '\t') out += ' ';
        else out += static_cast<char>(c);
    }
  }
  return out;
}

bool is_failure(const std::string& status) { return status == "failed" || status == "error"; }

// "lost-update x12, G-single x3"
std::string documented_short(const Json& r) {
  std::string out;
  for (const Json& d : r.list("documented"))
    out += fmt::format("{}{} x{}", out.empty() ? "" : ", ", d.str("kind"), static_cast<long>(d.num("cases")));
  return out;
}

// "read_committed" -> "RC"
std::string level_abbrev(const std::string& level) {
  static const std::map<std::string, std::string> m = {{"read_uncommitted", "RU"}, {"read_committed", "RC"},
                                                       {"repeatable_read", "RR"}, {"serializable", "SER"}};
  auto it = m.find(level);
  return it == m.end() ? level : it->second;
}

struct Arguments {
  std::vector<std::string> files;
  std::string junit, title = "txprop";
};

Arguments parse_arguments(const std::vector<std::string>& args) {
  Arguments a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "--junit" || args[i] == "--title") && i + 1 < args.size()) {
      (args[i] == "--junit" ? a.junit : a.title) = args[i + 1];
      ++i;
    } else if (args[i].starts_with("--")) {
      throw std::invalid_argument("unexpected argument '" + args[i] + "'");
    } else {
      a.files.push_back(args[i]);
    }
  }
  if (a.files.empty())
    throw std::invalid_argument("usage: txprop summary <records.jsonl>... [--junit <file.xml>] [--title TEXT]");
  return a;
}

// Every record of every file; an unreadable line is named on stderr and counted.
std::vector<Json> read_records(const std::vector<std::string>& files, int& unreadable) {
  std::vector<Json> records;
  for (const std::string& name : files) {
    std::ifstream in(name);
    if (!in) throw std::invalid_argument("cannot read " + name);
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      if (line.empty()) continue;
      try {
        records.push_back(Parser(line).parse());
      } catch (const std::exception& e) {
        std::cerr << fmt::format("txprop summary: {}:{}: unreadable record ({})\n", name, line_no, e.what());
        ++unreadable;
      }
    }
  }
  return records;
}

// Properties first (by suite, target, level), then scenario files.
void sort_records(std::vector<Json>& records) {
  std::stable_sort(records.begin(), records.end(), [](const Json& a, const Json& b) {
    auto key = [](const Json& r) {
      static const std::map<std::string, int> rank = {
          {"read_uncommitted", 0}, {"read_committed", 1}, {"repeatable_read", 2}, {"serializable", 3}};
      const auto l = rank.find(r.str("level"));
      return std::make_tuple(r.str("type") == "scenario", r.str("suite"), r.str("scenario"), r.str("target"),
                             l == rank.end() ? 9 : l->second);
    };
    return key(a) < key(b);
  });
}

// What the summary adds up over the records, and the column widths it prints them in.
struct Tally {
  long cases = 0, inconclusive = 0, documented_cases = 0;
  double seconds = 0;
  int suites = 0, scenarios = 0, failures = 0, deviations = 0, skipped = 0;
  std::vector<std::string> targets;                  // sorted
  std::map<std::string, std::string> uris, servers;  // target -> masked URI, server version
  struct Documented {
    long cases = 0;
    std::set<std::string> where;  // "Wss RC"
  };
  std::map<std::tuple<std::string, std::string, std::string>, Documented> documented;  // target, kind, source
  std::map<std::string, long> tags;
  std::vector<std::string> failure_lines, inconclusive_lines;
  std::map<std::string, std::map<std::string, std::string>> matrix;  // scenario file -> target -> cell
  std::size_t w_suite = 14, w_target = 6, w_file = 26;
};

void collect_targets(const std::vector<Json>& records, Tally& t) {
  for (const Json& r : records) {
    const std::string target = r.str("target");
    if (std::find(t.targets.begin(), t.targets.end(), target) == t.targets.end()) t.targets.push_back(target);
    if (!r.str("uri").empty()) t.uris[target] = r.str("uri");
    if (!r.str("server").empty()) t.servers[target] = r.str("server");
    t.w_target = std::max(t.w_target, target.size());
    if (r.str("type") == "scenario") t.w_file = std::max(t.w_file, r.str("scenario").size());
    else t.w_suite = std::max(t.w_suite, r.str("suite").size());
  }
  std::sort(t.targets.begin(), t.targets.end());
}

void tally_scenario(const Json& r, Tally& t) {
  const std::string status = r.str("status"), target = r.str("target");
  ++t.scenarios;
  if (status == "skipped") ++t.skipped;
  const std::string levels = r.str("level");
  const long n = levels == "-" ? 0 : static_cast<long>(std::count(levels.begin(), levels.end(), ',') + 1);
  t.matrix[r.str("scenario")][target] = status == "passed"    ? fmt::format("ok ({})", n)
                                        : status == "skipped" ? (r.str("message").empty() ? "no level" : "skipped")
                                        : status == "failed"  ? "FAILED"
                                                              : "ERROR";
  if (is_failure(status))
    t.failure_lines.push_back(fmt::format("Scenario {} on {}: {}", r.str("file"), target, r.str("message")));
}

// One property suite's row, printed, and its counts added.
void tally_suite(const Json& r, Tally& t) {
  const std::string status = r.str("status"), target = r.str("target");
  ++t.suites;
  const long n = static_cast<long>(r.num("cases"));
  t.cases += n;
  const long without = static_cast<long>(r.num("inconclusive"));
  t.inconclusive += without;
  const std::string level = level_abbrev(r.str("level"));
  std::string result = status == "passed" ? "ok" : status;
  if (status == "deviation") {
    ++t.deviations;
    result = "documented deviation: " + r.str("finding");
  } else if (status == "failed") {
    result = "FAILED: " + r.str("finding", r.str("message"));
  } else if (status == "error") {
    result = "ERROR: " + r.str("message");
  }
  if (auto d = documented_short(r); !d.empty()) result += "; documented: " + d;
  if (without) result += fmt::format("; {} without a verdict", without);
  if (!r.str("shards").empty()) result += "; shards " + r.str("shards");
  std::cout << fmt::format("{:<{}}  {:<{}}  {:<5} {:>7} {:>8.1f}  {}\n", r.str("suite"), t.w_suite, target, t.w_target,
                           level, n, r.num("seconds"), result);
  for (const Json& d : r.list("documented")) {
    auto& slot = t.documented[{target, d.str("kind"), d.str("source")}];
    slot.cases += static_cast<long>(d.num("cases"));
    slot.where.insert(r.str("suite") + " " + level);
    t.documented_cases += static_cast<long>(d.num("cases"));
  }
  for (const Json& g : r.list("tags")) t.tags[r.str("suite") + ": " + g.str("tag")] += static_cast<long>(g.num("cases"));
  const std::string where = fmt::format("{}.check/{}_{}", r.str("suite"), target, r.str("level"));
  if (is_failure(status) || status == "deviation") {
    std::string l = fmt::format("{}: {}", where, status == "error" ? r.str("message") : r.str("finding", r.str("message")));
    if (status == "deviation") l += " (documented deviation from the claimed level, not a failure)";
    if (!r.str("report").empty()) l += "\n      report: " + r.str("report");
    t.failure_lines.push_back(l);
  }
  if (without) t.inconclusive_lines.push_back(fmt::format("{}: {} case(s)", where, without));
}

void print_targets(const std::string& title, const Tally& t) {
  std::cout << fmt::format("\n== {}: what was checked\n", title);
  for (const auto& target : t.targets)
    std::cout << fmt::format("target {:<{}}  {}{}\n", target, t.w_target,
                             t.uris.count(target) ? t.uris.at(target) : "?",
                             t.servers.count(target) ? " (" + t.servers.at(target) + ")" : "");
  std::cout << "\n";
}

// The suites' table (printed while tallying) and the scenario files' counts.
void tally_records(const std::vector<Json>& records, Tally& t) {
  bool header = false;
  for (const Json& r : records) {
    t.seconds += r.num("seconds");
    if (is_failure(r.str("status"))) ++t.failures;
    if (r.str("type") == "scenario") {
      tally_scenario(r, t);
      continue;
    }
    if (!header) {
      std::cout << fmt::format("{:<{}}  {:<{}}  {:<5} {:>7} {:>8}  {}\n", "property suite", t.w_suite, "target",
                               t.w_target, "level", "cases", "seconds", "result");
      header = true;
    }
    tally_suite(r, t);
  }
}

void print_matrix(const Tally& t) {
  if (t.matrix.empty()) return;
  std::vector<std::string> cols;
  for (const auto& target : t.targets) {
    bool any = false;
    for (const auto& [file, row] : t.matrix) any = any || row.count(target);
    if (any) cols.push_back(target);
  }
  std::cout << fmt::format("\n{:<{}}", "scenario file (levels run)", t.w_file);
  for (const auto& c : cols) std::cout << fmt::format("  {:<{}}", c, std::max<std::size_t>(c.size(), 8));
  std::cout << "\n";
  for (const auto& [file, row] : t.matrix) {
    std::cout << fmt::format("{:<{}}", file, t.w_file);
    for (const auto& c : cols)
      std::cout << fmt::format("  {:<{}}", row.count(c) ? row.at(c) : "-", std::max<std::size_t>(c.size(), 8));
    std::cout << "\n";
  }
  std::cout << "(-: the file does not apply to the target; skipped: not to its server version)\n";
}

void print_lists(const Tally& t) {
  if (!t.documented.empty()) {
    std::cout << "\ndocumented by the engine (counted and shown, not failures):\n";
    for (const auto& [key, d] : t.documented) {
      std::string where;
      for (const auto& w : d.where) where += (where.empty() ? "" : ", ") + w;
      std::cout << fmt::format("  {:<{}}  {:<22} {:>5} case(s) in {}\n      source: {}\n", std::get<0>(key), t.w_target,
                               std::get<1>(key), d.cases, where, std::get<2>(key));
    }
  }
  if (!t.tags.empty()) {
    std::cout << "\ntags (RC_TAG, RC_CLASSIFY, verdict tags):\n";
    for (const auto& [tag, n] : t.tags) std::cout << fmt::format("  {:<56} {:>6} case(s)\n", tag, n);
  }
  if (!t.failure_lines.empty()) {
    std::cout << "\nfailures and documented deviations:\n";
    for (const auto& l : t.failure_lines) std::cout << "  " << l << "\n";
  }
  if (!t.inconclusive_lines.empty()) {
    std::cout << "\ncases without a verdict:\n";
    for (const auto& l : t.inconclusive_lines) std::cout << "  " << l << "\n";
  }
}

void print_total(const Tally& t, bool nothing) {
  std::cout << fmt::format(
      "\nTOTAL: {} suite runs, {} cases, {} scenario runs ({} with no level to run) on {} target(s), {:.0f} s of test "
      "time; {} failure(s), {} documented deviation(s), {} documented finding(s) in {} case(s), {} case(s) without a "
      "verdict{}\n",
      t.suites, t.cases, t.scenarios, t.skipped, t.targets.size(), t.seconds, t.failures, t.deviations,
      t.documented.size(), t.documented_cases, t.inconclusive, nothing ? " -- NOTHING WAS CHECKED" : "");
}

void write_junit_case(std::ofstream& out, const std::string& suite, const Json& r) {
  out << fmt::format("    <testcase classname=\"{}\" name=\"{}/{}\" time=\"{:.3f}\">\n", xml(suite),
                     xml(r.str("target")), xml(r.str("level")), r.num("seconds"));
  out << "      <properties>\n";
  auto prop = [&](const std::string& k, const std::string& v) {
    if (!v.empty()) out << fmt::format("        <property name=\"{}\" value=\"{}\"/>\n", xml(k), xml(v));
  };
  prop("status", r.str("status"));
  prop("uri", r.str("uri"));
  prop("shards", r.str("shards"));
  prop("seeds", r.str("seeds"));
  if (r.get("cases")) prop("cases", fmt::format("{}", static_cast<long>(r.num("cases"))));
  if (r.get("inconclusive")) prop("without_verdict", fmt::format("{}", static_cast<long>(r.num("inconclusive"))));
  for (const Json& d : r.list("documented")) {
    prop("documented." + d.str("kind"), fmt::format("{}", static_cast<long>(d.num("cases"))));
    prop("documented." + d.str("kind") + ".source", d.str("source"));
  }
  for (const Json& g : r.list("tags")) prop("tag." + g.str("tag"), fmt::format("{}", static_cast<long>(g.num("cases"))));
  prop("report", r.str("report"));
  out << "      </properties>\n";
  const std::string status = r.str("status");
  const std::string what = r.str("finding", r.str("message"));
  if (status == "failed") out << fmt::format("      <failure message=\"{}\">{}</failure>\n", xml(what), xml(r.str("report")));
  else if (status == "error") out << fmt::format("      <failure type=\"error\" message=\"{}\"/>\n", xml(r.str("message")));
  else if (status == "skipped") out << "      <skipped/>\n";
  else if (status == "deviation")
    out << fmt::format("      <system-out>documented deviation {} -- report {}</system-out>\n", xml(what), xml(r.str("report")));
  out << "    </testcase>\n";
}

// The same as JUnit XML; a missing shard is a failed test case, so a CI reading only this file sees it.
void write_junit(const std::string& path, const std::string& title, const std::vector<Json>& records,
                 const Tally& t, const std::vector<std::string>& missing) {
  std::ofstream out(path);
  std::map<std::string, std::vector<const Json*>> by_suite;
  for (const Json& r : records)
    by_suite[r.str("type") == "scenario" ? "Scenario." + r.str("scenario") : r.str("suite")].push_back(&r);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" time=\"{:.3f}\">\n", xml(title),
                     records.size(), t.failures, t.seconds);
  for (const auto& [suite, rs] : by_suite) {
    int f = 0, s = 0;
    double secs = 0;
    for (const Json* r : rs) {
      f += is_failure(r->str("status"));
      s += r->str("status") == "skipped";
      secs += r->num("seconds");
    }
    out << fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
                       xml(suite), rs.size(), f, s, secs);
    for (const Json* r : rs) write_junit_case(out, suite, *r);
    out << "  </testsuite>\n";
  }
  if (!missing.empty()) {
    out << fmt::format("  <testsuite name=\"shards\" tests=\"{}\" failures=\"{}\">\n", missing.size(), missing.size());
    for (const auto& l : missing)
      out << fmt::format("    <testcase classname=\"shards\" name=\"{}\">\n      <failure message=\"missing shard\"/>\n"
                         "    </testcase>\n", xml(l));
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  if (!out) throw std::runtime_error("txprop summary: cannot write " + path);
  std::cout << "JUnit XML: " << path << "\n";
}

}  // namespace

int summary_command(const std::vector<std::string>& args) {
  const Arguments a = parse_arguments(args);
  const std::string file = a.files.size() == 1 ? a.files.front() : fmt::format("{} files", a.files.size());
  int unreadable = 0;
  txprop::records::ShardMerge merged = txprop::records::merge_shards(read_records(a.files, unreadable));
  std::vector<Json>& records = merged.records;
  sort_records(records);

  Tally t;
  collect_targets(records, t);
  print_targets(a.title, t);
  tally_records(records, t);
  print_matrix(t);
  print_lists(t);
  const bool nothing = records.empty();
  print_total(t, nothing);
  if (unreadable) std::cout << fmt::format("{} unreadable record(s) in {}\n", unreadable, file);
  for (const auto& l : merged.missing) std::cout << "MISSING SHARD: " << l << "\n";
  if (!a.junit.empty()) write_junit(a.junit, a.title, records, t, merged.missing);
  if (nothing) std::cerr << "txprop summary: no record in " << file << ": nothing was checked\n";
  return t.failures || nothing || unreadable || !merged.missing.empty() ? 1 : 0;
}
