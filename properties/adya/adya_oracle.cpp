// The Adya property as two registered oracles: "adya" (documented mode: fails only on what the engine promises to
// prevent) and "adyaclaimed" (the level's ANSI name read as Adya's level). Both run the case with IsoRel's
// instrumentation and strip it for reports.
#include <fmt/format.h>

#include "txprop/adya_instrumentation.hpp"
#include "txprop/foreign_key_checks.hpp"
#include "txprop/adya_levels.hpp"
#include "txprop/adya.hpp"
#include "txprop/behaviours.hpp"
#include "txprop/hidden_columns.hpp"
#include "txprop/oracle.hpp"

namespace txprop {

namespace {

class AdyaOracle final : public Oracle {
 public:
  explicit AdyaOracle(AdyaMode mode) : mode_(mode) {}
  std::string name() const override { return mode_ == AdyaMode::Documented ? "adya" : "adyaclaimed"; }
  std::vector<std::string> aliases() const override {
    return mode_ == AdyaMode::Documented ? std::vector<std::string>{"adyadocumented"} : std::vector<std::string>{};
  }
  // Adya's kinds, and a stale read: a G-SIb across the nodes of a cluster (check_adya, name_stale_reads).
  std::vector<std::string> finding_kinds() const override {
    const auto& kinds = adya::adya_kinds();
    std::vector<std::string> out(kinds.begin(), kinds.end());
    out.emplace_back(behaviour::kStaleRead);
    return out;
  }
  std::vector<std::string> classes_of(const std::string& kind) const override {
    if (kind == behaviour::kStaleRead) return {kind, "G-SIb"};
    const auto classes = adya::classes_of(kind);
    return {classes.begin(), classes.end()};
  }
  // IsoRel's instrumentation gives an INSERT's row a fresh row id and writer list; an upsert that updates the existing
  // row (or leaves it alone, or replaces it) would need that row's id and list, which the instrumented INSERT does not
  // carry: the history would show a write that did not happen, or miss one that did.
  std::string cannot_judge(const TestCase& c, const EngineProfile& engine) const override {
    // A foreign key's action writes rows no statement names (ON DELETE / ON UPDATE CASCADE or SET NULL): recorded by
    // triggers where the engine fires them for those writes (CascadeLog; adya_instrumentation.hpp), refused elsewhere
    // with the profile's reason. An INSERT's key check is recorded by a key read before it where one reads what the
    // check reads (adya_instrumentation.hpp is_key_read); the other reads a key makes are not: a history where one may
    // hide a dependency gets no verdict unless it has findings (unrecorded_foreign_key_read).
    if (std::string fk = first_writing_foreign_key(c.schema); !fk.empty()) {
      const std::string why = engine.capabilities().cascaded_writes_unrecorded;
      if (!why.empty()) return fk + ", and " + why;
    }
    // BOOLEAN columns and truth values are judged: every engine reads a BOOLEAN back as 1 / 0, and predicate_eval gives
    // TRUE / FALSE, IS [NOT] TRUE | FALSE, IS [NOT] DISTINCT FROM and the CASTs every engine agrees on the engines'
    // matches (the other CASTs are unknown: no edge through them); tests/targets/truth_value_oracles_test.cpp.
    if (std::string upsert = c.first_upsert(); !upsert.empty())
      return upsert + ", and Adya's instrumentation does not record whether it inserted, updated or left the row";
    // A MERGE inserts, updates, deletes or leaves each source row's target row by its WHEN clauses: the instrumented
    // statements record none of that (and its ON condition is a read of both tables no predicate read models).
    if (std::string merge = c.first_merge(); !merge.empty())
      return merge + ", and Adya's instrumentation does not record which rows a MERGE inserted, updated or deleted";
    // A chained transaction begins without a BEGIN, on its predecessor's connection: no planted test shows yet that
    // its start, and the versions it reads, are recorded right (issue 17: no form without one for each oracle).
    if (std::string chain = c.first_chain(); !chain.empty())
      return chain + ", and no planted test checks Adya's history of a chained transaction yet";
    // The versions a ROLLBACK TO SAVEPOINT undoes would have to be aborted versions of a transaction that commits.
    if (std::string savepoint = c.first_savepoint(); !savepoint.empty())
      return savepoint + ", and Adya's history does not record the versions a rollback to a savepoint undoes as aborted";
    // A SKIP LOCKED read's result leaves out rows its predicate matched (an inconsistent view by design, PostgreSQL 15
    // manual, SELECT, "The Locking Clause"), which Adya's predicate reads would record as versions it did not see; a
    // NOWAIT read failed where it would have waited. The key-only strengths read like FOR SHARE / FOR UPDATE, but which
    // versions they read at each level (PostgreSQL REPEATABLE READ: FOR KEY SHARE of a row whose non-key columns a
    // later commit changed returns the snapshot's version, where FOR SHARE fails) is not in the documented behaviour.
    // LOCK TABLE is judged: it reads and writes no row (no item or predicate read, nothing added around it) and takes
    // no snapshot (txn_start.cpp); what its lock changes is which statements wait, which the history records as for
    // any wait. tests/targets/lock_table_oracles_test.cpp.
    if (std::string lock = c.first_lock_option(); !lock.empty())
      return lock + ", and Adya's history and documented behaviour do not model that locking clause";
    // Its row id and writer list would uncover a covering index (the instrumentation differential, issue 21 item 1):
    // kept covering by a covering twin (HiddenColumns::covering_twin), refused where the twin would change what the
    // engine reads or locks (hidden_columns_uncover_an_index).
    if (std::string index = hidden_columns_uncover_an_index(c, engine.capabilities()); !index.empty())
      return index + ", and Adya's hidden columns would change which index records the engine reads and locks";
    return {};
  }
  TestCase prepare(const TestCase& c, const EngineProfile& engine) const override {
    return instrument_for_adya(c, engine);
  }
  TestCase strip(const TestCase& prepared) const override { return adya::strip_instrumentation(prepared); }
  std::string preparation(const TestCase& prepared) const override {
    return fmt::format("it ran instrumented for the property (extra columns; T{} reads every table at the end)",
                       prepared.transactions.size() - 1);
  }
  Verdict judge(Target& target, const History& h) const override {
    return check_adya(target, h, mode_);
  }

 private:
  AdyaMode mode_;
};

}  // namespace

std::unique_ptr<Oracle> adya_documented_oracle() { return std::make_unique<AdyaOracle>(AdyaMode::Documented); }
std::unique_ptr<Oracle> adya_claimed_oracle() { return std::make_unique<AdyaOracle>(AdyaMode::Claimed); }

}  // namespace txprop
