// Troc's view and lock expectations as a suite, on the richer statement forms: one test per configured (target,
// isolation level). Findings the
// engine profile documents (MariaDB REPEATABLE READ snapshot reads after a current read, MDEV-26642/MDEV-26671) are
// counted and printed, and do not fail the test.
#include <txprop/txprop.hpp>

TXPROP_PROPERTY(Troc, (const txprop::TestCase& c)) { RC_ASSERT_VERDICT(check(txprop::oracle("troc"), c)); }

TXPROP_SETTINGS(Troc) {
  // Joins, derived tables, subqueries in WHERE / SET / the SELECT list, aggregates, ORDER BY ... LIMIT, CASE, and the
  // joined writes the engine has (the harness sets them from the profile's capabilities) (issue 11).
  s.generator.rich_statements = true;
  // Derived tables with GROUP BY or a join inside: run on the view like any SELECT; the join's table is read by the
  // statement's own rule; their rows lock nothing the model claims (no row id of a group, t's rows of the join).
  s.generator.derived_inner_forms = true;
  // TRUE / FALSE, IS [NOT] TRUE, CAST, IS [NOT] DISTINCT FROM: run on the engine itself.
  s.generator.truth_forms = true;
  s.generator.booleans = true;  // BOOLEAN columns compared only with TRUE / FALSE (every engine)
  // Foreign keys with every action: a write that touches one runs on its view with the keys enforced (judge.cpp,
  // add_key_tables), so the engine's own check and actions are in the model (issue 17).
  s.generator.foreign_keys = true;
}
