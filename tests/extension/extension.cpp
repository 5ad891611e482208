// A fourth engine and a fifth oracle, written against the installed public API only.
#include <txprop/txprop.hpp>

#include <fmt/format.h>

namespace {

// "pgflavour": a PostgreSQL-protocol engine that offers READ COMMITTED and SERIALIZABLE only (as several
// PostgreSQL-compatible engines do) and documents its own behaviour. It runs on the PostgreSQL driver: open() is the
// PostgreSQL profile's.
class PgFlavour final : public txprop::EngineProfile {
 public:
  std::string name() const override { return "pgflavour"; }
  std::vector<std::string> schemes() const override { return {"pgflavour"}; }
  txprop::Dialect dialect() const override { return txprop::Dialect::PostgreSql; }
  std::vector<txprop::IsolationLevel> levels() const override {
    return {txprop::IsolationLevel::ReadCommitted, txprop::IsolationLevel::Serializable};
  }
  int default_port() const override { return 5432; }
  std::vector<txprop::EngineParameter> parameters() const override { return base().parameters(); }
  txprop::EngineCapabilities capabilities() const override { return base().capabilities(); }
  txprop::DocumentedBehaviour documented(txprop::IsolationLevel level, const txprop::TargetConfig&) const override {
    txprop::DocumentedBehaviour d;
    if (level == txprop::IsolationLevel::Serializable) {
      d.promise = "PL-3";
      d.prevented = {"G0", "G1a", "G1b", "G1c", "G-single", "G2-item", "G2"};
      d.source = "pgflavour manual, Isolation: SERIALIZABLE is serializable (tests/extension/extension.cpp)";
      d.wss.reads_serializable = true;
      d.wss.any_serial_order = true;
      d.wss.source = d.source;
    } else {
      d.promise = "PL-2";
      d.prevented = {"G0", "G1a", "G1b", "G1c"};
      d.source = "pgflavour manual, Isolation: READ COMMITTED takes a snapshot per statement (tests/extension/extension.cpp)";
      d.allowed = {{"non-repeatable-read", d.source}, {"G-single", d.source}, {"G2", d.source}};
      d.wss.write_serializable = false;
      d.wss.source = d.source;
    }
    return d;
  }
  std::unique_ptr<txprop::drivers::Driver> open(const txprop::TargetConfig& config) const override {
    return base().open(config);
  }

 private:
  static const txprop::EngineProfile& base() { return *txprop::find_engine("postgresql"); }
};

// "stable-reads": a transaction that repeats its first SELECT just before it ends, without having written in
// between, gets the same rows. Claimed, not documented: it fails even where the engine allows non-repeatable reads,
// which is what a team asking "do our reads stay stable at this level?" wants to see shrunk.
class StableReads final : public txprop::Oracle {
 public:
  std::string name() const override { return "stable-reads"; }
  std::vector<std::string> finding_kinds() const override { return {"non-repeatable-read"}; }

  // A transaction whose first SELECT is a locking read (FOR UPDATE / FOR SHARE) would repeat it under the locks it
  // took, where rows stay stable whatever the level promises of plain reads: such a case is refused, and the one
  // judging path never prepares or runs it (judge() below checks that it is never given one).
  std::string cannot_judge(const txprop::TestCase& c, const txprop::EngineProfile&) const override {
    for (std::size_t t = 0; t < c.transactions.size(); ++t) {
      const int first = first_select(c.transactions[t]);
      if (first >= 0 && c.transactions[t].statements[static_cast<std::size_t>(first)].lock != txprop::LockMode::None)
        return fmt::format("T{}'s first SELECT is a locking read", t);
    }
    return {};
  }

  // Each transaction with a SELECT repeats its first SELECT as its last statement, submitted just before its end.
  txprop::TestCase prepare(const txprop::TestCase& c, const txprop::EngineProfile&) const override {
    txprop::TestCase out = c;
    for (std::size_t t = 0; t < out.transactions.size(); ++t) {
      auto& statements = out.transactions[t].statements;
      const auto first = std::find_if(statements.begin(), statements.end(),
                                      [](const txprop::Statement& s) { return s.kind == txprop::StatementKind::Select; });
      if (first == statements.end()) continue;
      statements.push_back(*first);
      const auto end_step = std::find(out.order.rbegin(), out.order.rend(), static_cast<int>(t));
      out.order.insert(std::prev(end_step.base()), static_cast<int>(t));
    }
    return out;
  }
  txprop::TestCase strip(const txprop::TestCase& prepared) const override {
    txprop::TestCase out = prepared;
    for (std::size_t t = 0; t < out.transactions.size(); ++t) {
      auto& statements = out.transactions[t].statements;
      const int first = first_select(out.transactions[t]);
      if (first < 0 || static_cast<std::size_t>(first) + 1 >= statements.size() ||
          !(statements.back() == statements[static_cast<std::size_t>(first)]))
        continue;
      statements.pop_back();
      // The repeat's step is the transaction's second-to-last in the submitted order (the last is its end).
      const auto end_step = std::find(out.order.rbegin(), out.order.rend(), static_cast<int>(t));
      const auto repeat_step = std::find(std::next(end_step), out.order.rend(), static_cast<int>(t));
      out.order.erase(std::next(repeat_step).base());
    }
    return out;
  }

  txprop::Verdict judge(txprop::Target& target, const txprop::History& h) const override {
    if (const std::string why = cannot_judge(h.test_case, target.engine()); !why.empty())
      throw std::logic_error("stable-reads was given a case it refuses: " + why);
    txprop::Verdict v = txprop::Verdict::pass(name());
    for (std::size_t t = 0; t < h.test_case.transactions.size(); ++t) {
      const txprop::Transaction& tx = h.test_case.transactions[t];
      const int first = first_select(tx);
      const std::size_t last = tx.statements.size();  // step index of the repeat (step 0 is BEGIN)
      if (first < 0 || static_cast<std::size_t>(first) + 1 >= last || h.transactions[t].fate != txprop::TxnFate::Committed)
        continue;
      bool wrote = false;
      for (std::size_t i = static_cast<std::size_t>(first) + 1; i + 1 < last; ++i) wrote = wrote || tx.statements[i].is_write();
      const txprop::Outcome& before = h.outcomes[t][static_cast<std::size_t>(first) + 1];
      const txprop::Outcome& after = h.outcomes[t][last];
      if (wrote || !before.ok() || !after.ok()) continue;
      const std::string diff = txprop::compare_outcomes(before, after);
      if (diff.empty()) continue;
      txprop::Finding f;
      f.kind = "non-repeatable-read";
      f.transactions = {static_cast<int>(t)};
      f.explanation = fmt::format("T{} read {} twice without writing in between, at {}:\n  first: {}\n  again: {}\n  {}\n",
                                  t, txprop::render(tx.statements[static_cast<std::size_t>(first)], txprop::Dialect::Portable),
                                  txprop::sql_name(tx.isolation), txprop::summary(before), txprop::summary(after), diff);
      v.findings.push_back(std::move(f));
    }
    return v;
  }

 private:
  static int first_select(const txprop::Transaction& tx) {
    for (std::size_t i = 0; i < tx.statements.size(); ++i)
      if (tx.statements[i].kind == txprop::StatementKind::Select) return static_cast<int>(i);
    return -1;
  }
};

}  // namespace

TXPROP_REGISTER_ENGINE(PgFlavour);
TXPROP_REGISTER_ORACLE(StableReads);
