// The SDG property as a registered oracle "sdg": prepared with TxCheck's instrumentation, judged by check_sdg.
#include "engine_changes.hpp"
#include "instrumentation.hpp"
#include "sdg.hpp"
#include "txprop/adya_levels.hpp"
#include "txprop/hidden_columns.hpp"
#include "txprop/oracle.hpp"

namespace txprop {

namespace {

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
    // A cascaded write has no before- and after-write reads of its own, and the check of the referenced row is a read
    // no instrumented statement records: the graph would miss their dependencies.
    if (std::string fk = c.schema.first_foreign_key(); !fk.empty())
      return fk + ", and TxCheck's instrumentation does not record the writes and reads a foreign key makes";
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
    // differential, issue 21 item 1), the case is not judged.
    if (std::string index = hidden_columns_uncover_an_index(c, engine.capabilities()); !index.empty())
      return index + ", and TxCheck's row and version keys would make the optimizer scan another index";
    return sdg::reads_change_engine(c, engine);
  }
  TestCase prepare(const TestCase& c, const EngineProfile& engine) const override {
    return sdg::instrument(c, engine.capabilities().first_write_snapshot_after_wait);
  }
  TestCase strip(const TestCase& prepared) const override { return sdg::strip(prepared); }
  Verdict judge(Target& target, const History& h) const override {
    return sdg::check_sdg(target, h);
  }
};

}  // namespace

std::unique_ptr<Oracle> sdg_oracle() { return std::make_unique<SdgOracle>(); }

}  // namespace txprop
