// The atomicity property as a suite: one test per configured (target, isolation level).
#include <txprop/txprop.hpp>

TXPROP_PROPERTY(Atomicity, (const txprop::TestCase& c)) { RC_ASSERT_VERDICT(check(txprop::oracle("atomicity"), c)); }

TXPROP_SETTINGS(Atomicity) {
  // Rolled-back and aborted transactions are what this property is about.
  s.generator.rollback_probability = 0.5;
  s.generator.rich_statements = true;  // EXISTS / NOT EXISTS subqueries, CASE (issue 11)
  s.generator.derived_inner_forms = true;  // derived tables with GROUP BY or a join inside
  s.generator.upserts = true;  // the engine's upsert forms (issue 17): the replay of the committed ones runs them too
  s.generator.chains = true;  // COMMIT / ROLLBACK AND CHAIN where the server has it: two transactions on one connection
  s.generator.truth_forms = true;  // TRUE / FALSE, IS [NOT] TRUE, CAST, IS [NOT] DISTINCT FROM (every engine)
  s.generator.savepoints = true;  // SAVEPOINT ... ROLLBACK TO / RELEASE: what ROLLBACK TO undid has no effect
  s.generator.foreign_keys = true;  // FOREIGN KEY ... ON DELETE CASCADE | RESTRICT | NO ACTION | SET NULL: the replay of the committed ones on the engine cascades again
  s.generator.booleans = true;  // BOOLEAN columns compared only with TRUE / FALSE (every engine)
  s.generator.merge = true;  // MERGE where the server has it (PostgreSQL 15+): the replay runs the committed ones too
  s.generator.lock_options = true;  // FOR KEY SHARE / NO KEY UPDATE, NOWAIT, SKIP LOCKED where the engine has them
  s.generator.lock_tables = true;  // LOCK TABLE t IN <mode> MODE [NOWAIT] (PostgreSQL): its waits, and what it leaves in a replay
}
