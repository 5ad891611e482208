// The SDG property as a registered oracle "sdg": prepared with TxCheck's instrumentation, judged by check_sdg.
#include <algorithm>

#include <fmt/format.h>

#include "engine_changes.hpp"
#include "instrumentation.hpp"
#include "sdg.hpp"
#include "txprop/adya_levels.hpp"
#include "txprop/foreign_key_checks.hpp"
#include "txprop/hidden_columns.hpp"
#include "txprop/oracle.hpp"

namespace txprop {

namespace {

bool among(const std::vector<IsolationLevel>& levels, IsolationLevel l) {
  return std::find(levels.begin(), levels.end(), l) != levels.end();
}

// "T1.2 checks a foreign key against t0 at SERIALIZABLE, which T0 writes, and ..." for the first key check whose
// version-set read would not read what the check reads, or would take locks it does not, on a table another
// transaction writes: where plain reads lock (InnoDB SERIALIZABLE) or take SIREAD locks (PostgreSQL SERIALIZABLE), and
// where the check is a current, locking read (InnoDB: a plain read reads the snapshot at REPEATABLE READ; below it
// they agree unless the check waits, which no instrumentation differential has checked on InnoDB yet: the
// ForeignKeys* differentials run on SQLite and PostgreSQL). reads_change_engine asks the same of the tables the
// statements name.
std::string key_checks_unfaithful(const TestCase& c, const EngineCapabilities& caps) {
  for (std::size_t t = 0; t < c.transactions.size(); ++t) {
    const Transaction& tx = c.transactions[t];
    const bool locks = among(caps.locking_plain_reads, tx.isolation) || among(caps.predicate_lock_levels, tx.isolation);
    const bool current = !caps.writes_read_snapshot;
    if (!locks && !current) continue;
    for (std::size_t i = 0; i < tx.statements.size(); ++i)
      for (const std::string& checked : foreign_key_checked_tables(c.schema, tx.statements[i]))
        for (std::size_t u = 0; u < c.transactions.size(); ++u) {
          if (u == t) continue;
          for (const Statement& other : c.transactions[u].statements) {
            const std::vector<std::string> w = other.written_tables();
            if (std::find(w.begin(), w.end(), checked) == w.end()) continue;
            return fmt::format("T{}.{} checks a foreign key against {} at {}, which T{} writes, and {}", t, i + 1,
                               checked, sql_name(tx.isolation), u,
                               locks ? "a version-set read standing for the check would take locks the check does not"
                                     : "the check is a locking read of the latest committed rows, which a plain "
                                       "read before it is not shown to match");
          }
        }
  }
  return {};
}

// "T1.2 UPDATE ... writes t1, which a foreign key's action of it also writes" for the first statement that writes a
// table its keys' actions write (a multi-table write): the cascade reads (instrumentation.hpp) could not tell its
// own writes of that table from the action's, or "".
std::string writes_what_its_keys_write(const TestCase& c) {
  for (std::size_t t = 0; t < c.transactions.size(); ++t)
    for (std::size_t i = 0; i < c.transactions[t].statements.size(); ++i) {
      const Statement& s = c.transactions[t].statements[i];
      const std::vector<std::string> written = s.written_tables();
      for (const std::string& cascaded : sdg::cascade_tables(s, c.schema))
        if (std::find(written.begin(), written.end(), cascaded) != written.end())
          return fmt::format("T{}.{} writes {}, which a foreign key's action of it also writes, and TxCheck's reads "
                             "around it cannot tell the two apart", t, i + 1, cascaded);
    }
  return {};
}

class SdgOracle final : public Oracle {
 public:
  std::string name() const override { return "sdg"; }
  std::vector<std::string> finding_kinds() const override {
    std::vector<std::string> kinds = {"result-mismatch", "final-state-mismatch"};
    for (const std::string& k : adya::adya_kinds()) kinds.push_back(k);
    return kinds;
  }
  // TxCheck's instrumentation reads run beside each statement inside the statement's own transaction (the group must
  // see what the statement saw); an autocommit statement has no transaction around it to hold them, and making one
  // would change what the statement is (MariaDB SERIALIZABLE locks plain reads only outside autocommit).
  std::string cannot_judge(const TestCase& c, const EngineProfile& engine) const override {
    // A key's action writes rows no statement names: recorded by the reads of the tables it writes before and after
    // the statement, and by triggers that give a cascaded update a version key of its own where the engine fires
    // them for those writes (instrumentation.hpp, cascade reads; Adya records them with the same triggers), refused
    // elsewhere with the profile's reason. A key whose actions write nothing only checks rows, which version-set reads
    // of the checked tables record (instrumentation.cpp) where a plain read reads what the check reads
    // (key_checks_unfaithful).
    if (std::string fk = first_writing_foreign_key(c.schema); !fk.empty()) {
      if (const std::string why = engine.capabilities().cascaded_writes_unrecorded; !why.empty())
        return fk + ", and " + why;
      if (std::string both = writes_what_its_keys_write(c); !both.empty()) return both;
    }
    if (std::string why = key_checks_unfaithful(c, engine.capabilities()); !why.empty()) return why;
    // BOOLEAN columns and truth values are judged: the instrumented reads copy the predicate and run on the engine,
    // like the replay; tests/targets/truth_value_oracles_test.cpp.
    // TxCheck's before- and after-write reads assume an INSERT writes the row it names; an upsert may update another
    // version of it or leave it alone, which the instrumentation does not record.
    if (std::string upsert = c.first_upsert(); !upsert.empty())
      return upsert + ", and TxCheck's instrumentation does not record whether it inserted, updated or left the row";
    // The same for a MERGE: its before- and after-write reads would have to follow its WHEN clauses row by row.
    if (std::string merge = c.first_merge(); !merge.empty())
      return merge + ", and TxCheck's instrumentation does not record which rows a MERGE inserted, updated or deleted";
    // A chained transaction begins without a BEGIN, on its predecessor's connection: not checked by a planted test yet.
    if (std::string chain = c.first_chain(); !chain.empty())
      return chain + ", and no planted test checks TxCheck's graph of a chained transaction yet";
    // Its replay of a topological order runs statements without their transactions: a savepoint has no meaning there.
    if (std::string savepoint = c.first_savepoint(); !savepoint.empty())
      return savepoint + ", and TxCheck's dependency graph does not model what a rollback to a savepoint undoes";
    // Its replay runs statements without the other transactions' locks: a NOWAIT or SKIP LOCKED read would give
    // another result there; and Assumption A3's per-engine table does not cover PostgreSQL's key-only strengths.
    // LOCK TABLE is judged: it reads and writes no row, so it gets no instrumentation reads and is no node of the graph
    // (nor of the replay, which runs outside transactions, where PostgreSQL rejects it); its lock only orders the
    // others, as the completion order the graph is built from records. tests/targets/lock_table_oracles_test.cpp.
    if (std::string lock = c.first_lock_option(); !lock.empty())
      return lock + ", and TxCheck's replay and Assumption A3 do not model that locking clause";
    if (c.has_autocommit_statements())
      return "it has autocommit statements (outside BEGIN ... COMMIT), and TxCheck's instrumentation reads must run "
             "in the statement's own transaction";
    // Where the engine gives no way to make those reads without changing what it does (the instrumentation
    // differential, issue 21 item 1), the case is not judged: a covering index its keys would uncover is kept covering
    // by a covering twin (HiddenColumns::covering_twin), refused where the twin would change what the engine reads or
    // locks (hidden_columns_uncover_an_index).
    if (std::string index = hidden_columns_uncover_an_index(c, engine.capabilities()); !index.empty())
      return index + ", and TxCheck's row and version keys would change which index records the engine reads and "
                     "locks";
    return sdg::reads_change_engine(c, engine);
  }
  TestCase prepare(const TestCase& c, const EngineProfile& engine) const override {
    const EngineCapabilities capabilities = engine.capabilities();
    return sdg::instrument(c, capabilities.first_write_snapshot_after_wait, sdg::moved_reads(c, engine),
                           capabilities.update_skips_unchanged_rows, capabilities.cascaded_writes_unrecorded.empty(),
                           !capabilities.writes_read_snapshot, capabilities.table_free_snapshot_levels);
  }
  TestCase strip(const TestCase& prepared) const override { return sdg::strip(prepared); }
  Verdict judge(Target& target, const History& h) const override {
    return sdg::check_sdg(target, h);
  }
};

}  // namespace

std::unique_ptr<Oracle> sdg_oracle() { return std::make_unique<SdgOracle>(); }

}  // namespace txprop
