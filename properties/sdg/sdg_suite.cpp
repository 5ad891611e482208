// The SDG property (TxCheck's Theorem 1) as a suite: one test per configured (target, isolation level). Where the
// level does not satisfy Assumption A3 (MariaDB REPEATABLE READ with innodb_snapshot_isolation=OFF, READ
// UNCOMMITTED), mismatches are counted and printed as documented behaviour with the profile's source.
#include <algorithm>

#include <txprop/txprop.hpp>

TXPROP_PROPERTY(Sdg, (const txprop::TestCase& c)) { RC_ASSERT_VERDICT(check(txprop::oracle("sdg"), c)); }

TXPROP_SETTINGS(Sdg) {
  // Statements of committed transactions are what the graph is made of.
  s.generator.rollback_probability = 0.2;
  // The complex statements the SDG oracle exists for (EXISTS / NOT EXISTS subqueries, CASE).
  s.generator.rich_statements = true;
  s.generator.derived_inner_forms = true;  // derived tables with GROUP BY or a join inside
  // TRUE / FALSE, IS [NOT] TRUE, CAST, IS [NOT] DISTINCT FROM: run on the engine itself.
  s.generator.truth_forms = true;
  s.generator.booleans = true;  // BOOLEAN columns compared only with TRUE / FALSE (every engine)
  s.generator.lock_tables = true;  // LOCK TABLE (PostgreSQL): no node of the graph, its waits in the completion order
  // Foreign keys: their checks read by version-set reads of the checked tables; the writes of their actions (CASCADE,
  // SET NULL) recorded by reads of the tables they write and by triggers, where the engine fires triggers for those
  // writes (elsewhere they are refused, so the generator gives them only where they are recorded). Only where the
  // oracle judges a key's check on a table another transaction writes: not where writes read the latest committed
  // rows (InnoDB) nor where reads take SIREAD locks (PostgreSQL SERIALIZABLE), where such cases only add refusals
  // (sdg_oracle.cpp, key_checks_unfaithful).
  const txprop::EngineCapabilities caps = suite.config.profile().capabilities(suite.config);
  const auto& ssi = caps.predicate_lock_levels;
  s.generator.foreign_keys = caps.writes_read_snapshot && std::find(ssi.begin(), ssi.end(), suite.level) == ssi.end();
  s.generator.foreign_key_writes_recorded_only = true;
}
