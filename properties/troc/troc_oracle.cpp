// Troc as a registered oracle: the case gets row ids and writer lists; the judge rebuilds every statement's view.
#include <algorithm>

#include <fmt/format.h>

#include "txprop/hidden_columns.hpp"
#include "txprop/oracle.hpp"
#include "txprop/sql.hpp"
#include "troc.hpp"

namespace txprop {

namespace {

class TrocOracle final : public Oracle {
 public:
  std::string name() const override { return "troc"; }
  std::vector<std::string> finding_kinds() const override {
    return {"inconsistent-blocking", "incorrect-result", "incorrect-final-state", "missing-abort"};
  }
  // An autocommit statement is modelled as a one-statement transaction, with the visibility and lock rules of its
  // level. Where the engine's plain reads lock only outside autocommit (InnoDB SERIALIZABLE turns a plain SELECT into
  // a locking read only when autocommit is off), those rules do not describe an autocommit SELECT.
  std::string cannot_judge(const TestCase& c, const EngineProfile& engine) const override {
    // Foreign keys are judged (issue 17): a write that touches one runs on its view with the key tables as their
    // latest committed versions and the keys enforced, so the engine's own check and actions decide whether it may
    // succeed and which rows its actions write (judge.cpp, add_key_tables); those writes are the transaction's in the
    // version history and lock the rows they wrote. The check's own locks (InnoDB's shared record lock, PostgreSQL's
    // FOR KEY SHARE) are not in the lock model, which stays a lower bound: a wait for one is "block-not-required".
    // BOOLEAN columns and truth values are judged: Troc re-runs every statement and predicate on the engine itself,
    // over views materialised as the setup writes rows (TRUE / FALSE); tests/targets/truth_value_oracles_test.cpp.
    // Troc's view and lock model has no rule for a write that reads a key, then inserts, updates or leaves a row.
    if (std::string upsert = c.first_upsert(); !upsert.empty())
      return upsert + ", and Troc's visibility and lock model has no rule for the row an upsert inserts, updates or "
                      "leaves alone";
    // A MERGE reads its target through its ON condition and then writes what its WHEN clauses say: Troc's tables have
    // a rule per SELECT / INSERT / UPDATE / DELETE, none for a statement that may do all three.
    if (std::string merge = c.first_merge(); !merge.empty())
      return merge + ", and Troc's visibility and lock model has no rule for a MERGE";
    // A chained transaction takes its snapshot without a BEGIN (and InnoDB keeps no locks across the chain): Troc's
    // snapshot and lock rules are not checked on it by a planted test yet.
    if (std::string chain = c.first_chain(); !chain.empty())
      return chain + ", and Troc's snapshot and lock rules are not checked on a chained transaction yet";
    // Nor for a savepoint: its row-version history has no versions that a ROLLBACK TO SAVEPOINT undoes while the
    // transaction goes on (and which locks that releases differs by engine).
    if (std::string savepoint = c.first_savepoint(); !savepoint.empty())
      return savepoint + ", and Troc's row-version history does not model what a rollback to a savepoint undoes";
    // Its lock table has one shared and one exclusive mode, and a locking read that cannot get a lock waits: it has no
    // rule for PostgreSQL's key-only strengths (FOR KEY SHARE does not conflict with a non-key UPDATE), for a read
    // that fails instead of waiting (NOWAIT) or for one that leaves locked rows out of its result (SKIP LOCKED).
    if (std::string lock = c.first_lock_option(); !lock.empty())
      return lock + ", and Troc's lock model has only shared and exclusive locks that are waited for";
    // Its lock tables (Troc Tables II/III, and txprop's for PostgreSQL and SQLite) hold row locks only: a table lock
    // makes other statements wait (LOCK TABLE t IN SHARE MODE blocks every UPDATE of t: PostgreSQL 15 manual 13.3.1,
    // "Table-Level Locks") where the model expects none, which it would report as inconsistent blocking.
    if (std::string table_lock = c.first_lock_table(); !table_lock.empty())
      return table_lock + ", and Troc's lock model has row locks only, no table locks";
    // Troc's lock rules are one lock table. On a cluster each node has its own, and a transaction never waits for one
    // on another node (Galera certifies it at COMMIT instead): only cases on one node are modelled.
    for (std::size_t t = 1; t < c.transactions.size(); ++t)
      if (c.transactions[t].node >= 0 && c.transactions[0].node >= 0 && c.transactions[t].node != c.transactions[0].node)
        return fmt::format("T0 and T{} run on different nodes of a cluster (nodes {} and {}), and Troc's lock rules "
                           "model one server's locks",
                           t, c.transactions[0].node + 1, c.transactions[t].node + 1);
    const auto& locking = engine.capabilities().locking_plain_reads;
    for (std::size_t t = 0; t < c.transactions.size(); ++t) {
      const Transaction& tx = c.transactions[t];
      if (!tx.is_autocommit_statement() || tx.statements[0].kind != StatementKind::Select ||
          tx.statements[0].lock != LockMode::None ||
          std::find(locking.begin(), locking.end(), tx.isolation) == locking.end())
        continue;
      return fmt::format("T{} is an autocommit SELECT at {}, where {}'s plain reads lock only inside transactions, "
                         "and Troc's lock rules for that level assume they lock",
                         t, sql_name(tx.isolation), engine.name());
    }
    // Its row id and writer list would uncover a covering index (the instrumentation differential, issue 21 item 1):
    // kept covering by a covering twin (HiddenColumns::covering_twin), refused where the twin would change what the
    // engine reads or locks (hidden_columns_uncover_an_index).
    if (std::string index = hidden_columns_uncover_an_index(c, engine.capabilities()); !index.empty())
      return index + ", and Troc's hidden columns would change which index records the engine reads and locks";
    return {};
  }
  TestCase prepare(const TestCase& c, const EngineProfile& engine) const override {
    return troc::prepare(c, engine.capabilities());
  }
  TestCase strip(const TestCase& prepared) const override { return troc::strip(prepared); }
  Verdict judge(Target& target, const History& h) const override {
    return troc::check_troc(target, h);
  }
};

}  // namespace

std::unique_ptr<Oracle> troc_oracle() { return std::make_unique<TrocOracle>(); }

}  // namespace txprop
