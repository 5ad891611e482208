// The WSS property as a suite: one test per configured (target, isolation level). Where the target's profile
// documents WSS mismatches (MariaDB READ COMMITTED, PostgreSQL READ COMMITTED and REPEATABLE READ), they are
// counted and printed, and do not fail the test.
#include <txprop/txprop.hpp>

TXPROP_PROPERTY(Wss, (const txprop::TestCase& c)) { RC_ASSERT_VERDICT(check(txprop::oracle("wss"), c)); }

TXPROP_SETTINGS(Wss) {
  s.generator.rich_statements = true;  // EXISTS / NOT EXISTS subqueries, CASE (issue 11)
  s.generator.derived_inner_forms = true;  // derived tables with GROUP BY or a join inside
  s.generator.upserts = true;  // the engine's upsert forms (issue 17): the serial replay runs them too
  s.generator.chains = true;  // COMMIT / ROLLBACK AND CHAIN where the server has it: two transactions on one connection
  s.generator.truth_forms = true;  // TRUE / FALSE, IS [NOT] TRUE, CAST, IS [NOT] DISTINCT FROM (every engine)
  s.generator.savepoints = true;  // SAVEPOINT ... ROLLBACK TO / RELEASE: the serial replay runs them too
  s.generator.foreign_keys = true;  // FOREIGN KEY ... ON DELETE CASCADE | RESTRICT | NO ACTION | SET NULL: the serial replay on the engine cascades again
  s.generator.booleans = true;  // BOOLEAN columns compared only with TRUE / FALSE (every engine)
  s.generator.merge = true;  // MERGE where the server has it (PostgreSQL 15+): the serial replay runs it too
  s.generator.lock_options = true;  // FOR KEY SHARE / NO KEY UPDATE, NOWAIT, SKIP LOCKED where the engine has them
  s.generator.lock_tables = true;  // LOCK TABLE t IN <mode> MODE [NOWAIT] (PostgreSQL): a statement that may wait, a placeholder in the replay
}
