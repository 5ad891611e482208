// Contention benchmark (issue 13): the share of generated cases in which concurrent transactions touch the same row or
// a row of a predicate read's version set, at least one of them writing it (a conflict: the Adya property's
// "contended" tag, measured on the engine's actual run), in the generator's default mode and in its contention mode
// (gen::Options::contention, TXPROP_CONTENTION=1), with the reasons the other cases did not conflict, and the
// statement forms generated in each mode (statement kind x the WHERE clause's top-level form), so that a higher share
// is not bought with less variety. Cases are generated as the AdyaDocumented suite generates them (its settings, the
// engine's capabilities) and run through the Adya property's instrumentation and checker.
//
// Usage: txprop_contention_bench [cases=300] [seed=1] [levels=ends|all]
//        (per configured target, TXPROP_TARGETS; "ends": its weakest and strongest level)
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "txprop/generators.hpp"
#include "txprop/oracle.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"

using namespace txprop;

namespace {

std::string where_form(const std::optional<Expr>& where) {
  if (!where) return "no WHERE";
  const Expr& e = *where;
  switch (e.kind) {
    case Expr::Kind::Binary:
      if (e.op == BinaryOp::And) return "AND";
      if (e.op == BinaryOp::Or) return "OR";
      if (!e.args.empty() && e.args.size() > 1 && e.args[1].kind == Expr::Kind::Subquery) return "op subquery";
      return e.op == BinaryOp::Eq ? "=" : "range (<, <=, >, >=, <>)";
    case Expr::Kind::Not: return "NOT";
    case Expr::Kind::IsNull: return "IS [NOT] NULL";
    case Expr::Kind::InList: return "IN list";
    case Expr::Kind::Between: return "BETWEEN";
    case Expr::Kind::InSubquery: return "IN subquery";
    case Expr::Kind::Exists: return "EXISTS";
    default: return "other";
  }
}

std::string statement_form(const Statement& s) {
  std::string kind = s.kind == StatementKind::Select
                         ? (s.lock == LockMode::Update ? "SELECT FOR UPDATE"
                            : s.lock == LockMode::Share ? "SELECT FOR SHARE"
                                                        : "SELECT")
                         : to_string(s.kind);
  if (s.kind == StatementKind::Insert) return s.is_upsert() ? kind + " " + upsert_form(s) : kind;
  return kind + " / " + where_form(s.where);
}

struct ModeResult {
  int cases = 0, failed_runs = 0;
  std::map<std::string, int> tags;   // contended / uncontended: <cause>
  std::map<std::string, int> forms;  // statement form -> statements
  int statements = 0;
};

ModeResult measure(Target& target, IsolationLevel level, bool contention, int cases, std::uint64_t seed) {
  gen::Options o;  // as the AdyaDocumented suite (properties/adya/adya_suite.cpp) and its harness set them
  o.rollback_probability = 0.15;
  o.weight_select = 30;
  o.engine.locking_reads = target.engine().capabilities().locking_reads;
  o.isolation = level;
  o.contention = contention;
  const Oracle& adya = oracle("adya");
  ModeResult r;
  rc::Random random(seed);
  const auto g = gen::test_case(o);
  for (int i = 0; i < cases; ++i) {
    // Sizes cycle through 0..99 as RapidCheck's runs ramp them.
    const TestCase c = g(random.split(), i % 100).value();
    for (const Transaction& t : c.transactions)
      for (const Statement& s : t.statements) {
        ++r.forms[statement_form(s)];
        ++r.statements;
      }
    ++r.cases;
    try {
      const History h = target.run(adya.prepare(c, target.engine()));
      const Verdict v = adya.judge(target, h);
      for (const std::string& tag : v.tags)
        if (tag == "contended" || tag.rfind("uncontended", 0) == 0) {
          // TXPROP_BENCH_SHOW=<tag>: print the first cases of that tag (contention mode), to see why.
          const char* show = std::getenv("TXPROP_BENCH_SHOW");
          if (contention && show && tag == show && r.tags[tag] < 4) fmt::print("{}\n{}\n", tag, describe(h));
          ++r.tags[tag];
        }
    } catch (const std::exception& e) {
      ++r.failed_runs;
    }
  }
  return r;
}

void print(const char* mode, const ModeResult& r) {
  const int contended = r.tags.count("contended") ? r.tags.at("contended") : 0;
  fmt::print("  {:<16} {:>4} cases: contended {:>5.1f}%", mode, r.cases, 100.0 * contended / std::max(1, r.cases));
  for (const auto& [tag, n] : r.tags)
    if (tag != "contended") fmt::print(", {} {:.1f}%", tag.substr(tag.find(':') + 2), 100.0 * n / std::max(1, r.cases));
  if (r.failed_runs) fmt::print(", {} runs failed", r.failed_runs);
  fmt::print("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const int cases = argc > 1 ? std::max(1, std::atoi(argv[1])) : 300;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const std::string levels = argc > 3 ? argv[3] : "ends";
  if (levels != "ends" && levels != "all") {
    fmt::print(stderr, "txprop_contention_bench: levels must be 'ends' or 'all', not '{}'\n", levels);
    return 2;
  }
  fmt::print("Share of generated cases with a conflict (concurrent transactions touching the same row or version-set "
             "row,\none of them writing it), measured on each engine's run; {} cases per mode, seed {}.\n",
             cases, seed);
  std::map<std::string, int> forms_default, forms_contention;
  int statements_default = 0, statements_contention = 0;
  const int status = bench::for_each_configured_target([&](const TargetConfig& config) {
    auto target = Target::open(config);
    std::vector<IsolationLevel> ls = config.levels;
    if (levels == "ends" && ls.size() > 2) ls = {ls.front(), ls.back()};
    for (IsolationLevel level : ls) {
      fmt::print("== {} at {}\n", config.name, sql_name(level));
      const ModeResult d = measure(*target, level, false, cases, seed);
      const ModeResult h = measure(*target, level, true, cases, seed);
      print("default", d);
      print("contention mode", h);
      for (const auto& [f, n] : d.forms) forms_default[f] += n;
      for (const auto& [f, n] : h.forms) forms_contention[f] += n;
      statements_default += d.statements;
      statements_contention += h.statements;
    }
  });
  std::set<std::string> all;
  for (const auto& [f, n] : forms_default) all.insert(f);
  for (const auto& [f, n] : forms_contention) all.insert(f);
  fmt::print("\nStatement forms (kind / WHERE's top-level form), share of statements: {} forms by default, {} in "
             "contention mode\n", forms_default.size(), forms_contention.size());
  for (const std::string& f : all) {
    auto share = [&](const std::map<std::string, int>& m, int total) {
      const auto it = m.find(f);
      return it == m.end() ? 0.0 : 100.0 * it->second / std::max(1, total);
    };
    fmt::print("  {:<40} {:>5.1f}%  {:>5.1f}%\n", f, share(forms_default, statements_default),
               share(forms_contention, statements_contention));
  }
  return status;
}
