// The statements txprop generates must be ones each engine accepts: with the richer forms on (EXISTS/NOT EXISTS,
// correlated or not, CASE, derived tables, scalar subqueries in SELECT lists, and the joined UPDATE/DELETE forms the
// profile says the engine has: MariaDB's multi-table UPDATE/DELETE, PostgreSQL's UPDATE ... FROM / DELETE ... USING,
// SQLite's UPDATE ... FROM; upserts and row-lock options where the engine has them), the share of generated statements an engine rejects as invalid (syntax, unknown name,
// MariaDB error 1093, type errors; aggregates with GROUP BY/HAVING, ORDER BY ... LIMIT) stays under 1% per target. Prints the share per target.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "support/engine_targets.hpp"
#include "txprop/generators.hpp"
#include "txprop/sql.hpp"

using namespace txprop;

namespace {

std::string upsert_form_name(Upsert form) {
  switch (form) {
    case Upsert::None: return "none";
    case Upsert::DoNothing: return "DO NOTHING";
    case Upsert::DoUpdate: return "DO UPDATE";
    case Upsert::Ignore: return "INSERT IGNORE";
    case Upsert::Replace: return "REPLACE";
  }
  return "?";
}

// The first configured target of `engine` with snapshot isolation on or off; nullptr if none is configured.
Target* engine_target(const std::string& engine, bool si) {
  auto config = find_configured_target([&](const TargetConfig& c) {
    return c.profile().name() == engine && test::snapshot_isolation_on(c) == si;
  });
  return config ? &shared_target(*config) : nullptr;
}

// The options of the runs of issue 17's forms below: rich statements, the capabilities of the server as opened (its
// version decides MERGE and chains), no rollbacks.
gen::Options issue17_options(const Target& target) {
  gen::Options o;
  o.rich_statements = true;
  o.engine = target.engine().capabilities(target.config());
  o.rollback_probability = 0;
  return o;
}

void check_engine(const std::string& engine, bool si) {
  Target* found = engine_target(engine, si);
  if (!found) GTEST_SKIP() << "no " << engine << " target in TXPROP_TARGETS";
  Target& target = *found;
  gen::Options o;
  o.rich_statements = true;
  o.derived_inner_forms = true;
  o.upserts = true;
  o.lock_options = true;
  o.lock_tables = true;
  const EngineCapabilities capabilities = target.engine().capabilities();
  o.engine = capabilities;
  o.rollback_probability = 0;
  const auto g = gen::test_case(o);
  rc::Random random(11);
  int statements = 0, rejected = 0, exists = 0, cases = 0, aggregates = 0, limits = 0, joins = 0, derived = 0,
      select_subqueries = 0, update_joins = 0, delete_joins = 0, two_table_updates = 0, two_table_deletes = 0,
      grouped_derived = 0, joined_derived = 0;
  std::string first;
  std::map<Upsert, std::pair<int, int>> upserts;  // form -> (statements run, rejected as invalid)
  std::map<std::string, int> upsert_names;        // with the WHERE of DO UPDATE apart
  std::map<std::string, std::pair<int, int>> lock_options;  // locking clause -> (statements run, rejected as invalid)
  std::map<std::string, std::pair<int, int>> lock_tables;  // LOCK TABLE mode [NOWAIT] -> (statements run, rejected)
  for (int i = 0; i < 300; ++i) {
    TestCase c = g(random.split(), 60).value();
    c.order = TestCase::serial_order(c.transactions);  // one at a time: no waits, every statement runs
    const History h = target.run(c);
    for (std::size_t t = 0; t < c.transactions.size(); ++t)
      for (std::size_t s = 0; s < c.transactions[t].statements.size(); ++s) {
        const Outcome& out = h.outcomes[t][s + 1];
        if (out.status == Outcome::Status::Skipped) continue;
        ++statements;
        const std::string sql = render(c.transactions[t].statements[s], Dialect::Portable);
        exists += sql.find("EXISTS") != std::string::npos;
        cases += sql.find("CASE WHEN") != std::string::npos;
        aggregates += !c.transactions[t].statements[s].items.empty();
        limits += c.transactions[t].statements[s].limit.has_value();
        const Statement& st = c.transactions[t].statements[s];
        joins += st.kind == StatementKind::Select && !st.joins.empty();
        derived += !st.derived.empty();
        select_subqueries += !st.select_exprs.empty();
        update_joins += st.is_multi_table_write() && st.kind == StatementKind::Update;
        delete_joins += st.is_multi_table_write() && st.kind == StatementKind::Delete;
        two_table_updates += st.written_tables().size() > 1 && st.kind == StatementKind::Update;
        two_table_deletes += st.written_tables().size() > 1 && st.kind == StatementKind::Delete;
        grouped_derived += !st.derived.empty() && !st.derived.front().group_by.empty();
        joined_derived += !st.derived.empty() && !st.derived.front().joins.empty();
        const bool invalid = out.failed() && out.error.cls == ErrorClass::InvalidStatement;
        if (st.is_upsert()) {
          ++upserts[st.upsert].first;
          upserts[st.upsert].second += invalid;
          ++upsert_names[upsert_form(st)];
        }
        if (st.kind == StatementKind::LockTable) {
          const std::string mode = st.table_lock_mode + (st.lock_wait == LockWait::NoWait ? " NOWAIT" : "");
          ++lock_tables[mode].first;
          lock_tables[mode].second += invalid;
        } else if (st.has_lock_option()) {
          ++lock_options[lock_clause(st)].first;
          lock_options[lock_clause(st)].second += invalid;
        }
        if (invalid) {
          ++rejected;
          if (first.empty()) first = sql + "\n  " + summary(out);
        }
      }
  }
  const double share = statements ? 100.0 * rejected / statements : 0;
  std::cout << fmt::format("[generated] {}: {} statements, {} rejected as invalid ({:.2f}%); {} with EXISTS, {} with "
                           "CASE, {} aggregating, {} with LIMIT, {} joins, {} derived tables, {} scalar subqueries in "
                           "SELECT lists, {} joined UPDATEs ({} of two tables), {} joined DELETEs ({} of two tables), "
                           "{} derived tables with GROUP BY, {} with a join\n",
                           target.name(), statements, rejected, share, exists, cases, aggregates, limits, joins, derived,
                           select_subqueries, update_joins, two_table_updates, delete_joins, two_table_deletes,
                           grouped_derived, joined_derived);
  // Upserts (issue 17): each form's share of the statements run, and the share of its statements rejected.
  for (const auto& [name, n] : upsert_names) {
    std::cout << fmt::format("[generated] {}: {:<32} {:>5} statements ({:.2f}% of all)\n", target.name(), name, n,
                             100.0 * n / std::max(1, statements));
  }
  for (const auto& [form, counts] : upserts) {
    const auto [n, bad] = counts;
    std::cout << fmt::format("[generated] {}: upsert form {:<24} {:>5} run ({:.2f}% of all), {} rejected as invalid "
                             "({:.2f}%)\n",
                             target.name(), upsert_form_name(form), n, 100.0 * n / std::max(1, statements), bad,
                             100.0 * bad / std::max(1, n));
    EXPECT_EQ(bad, 0) << upsert_form_name(form);  // issue 17: the engine rejects none (target 0%)
  }
  // Row-lock options (issue 17): each locking clause's share of the statements run, and the share rejected.
  for (const auto& [clause, counts] : lock_options) {
    const auto [n, bad] = counts;
    std::cout << fmt::format("[generated] {}: {:<32} {:>5} statements ({:.2f}% of all), {} rejected as invalid ({:.2f}%)\n",
                             target.name(), clause, n, 100.0 * n / std::max(1, statements), bad, 100.0 * bad / std::max(1, n));
    EXPECT_EQ(bad, 0) << clause;
  }
  // NOWAIT and SKIP LOCKED together (whatever the strength) on locking reads; LOCK TABLE apart, below.
  for (const char* wait : {"NOWAIT", "SKIP LOCKED"}) {
    int n = 0, bad = 0;
    for (const auto& [clause, counts] : lock_options)
      if (clause.find(wait) != std::string::npos) n += counts.first, bad += counts.second;
    std::cout << fmt::format("[generated] {}: any {:<28} {:>5} statements ({:.2f}% of all), {} rejected as invalid "
                             "({:.2f}%)\n",
                             target.name(), wait, n, 100.0 * n / std::max(1, statements), bad,
                             100.0 * bad / std::max(1, n));
  }
  // LOCK TABLE (issue 17 item 2): per mode (NOWAIT apart), and all together; generated where the profile says the
  // engine has it (PostgreSQL), never elsewhere.
  int lock_table_n = 0, lock_table_bad = 0;
  for (const auto& [mode, counts] : lock_tables) {
    const auto [n, bad] = counts;
    lock_table_n += n;
    lock_table_bad += bad;
    std::cout << fmt::format("[generated] {}: LOCK TABLE IN {:<21} {:>5} statements ({:.2f}% of all), {} rejected as "
                             "invalid ({:.2f}%)\n",
                             target.name(), mode, n, 100.0 * n / std::max(1, statements), bad, 100.0 * bad / std::max(1, n));
  }
  std::cout << fmt::format("[generated] {}: {:<32} {:>5} statements ({:.2f}% of all), {} rejected as invalid ({:.2f}%)\n",
                           target.name(), "LOCK TABLE (any mode)", lock_table_n,
                           100.0 * lock_table_n / std::max(1, statements), lock_table_bad,
                           100.0 * lock_table_bad / std::max(1, lock_table_n));
  EXPECT_EQ(lock_table_bad, 0);
  EXPECT_EQ(lock_table_n > 0, capabilities.lock_table);
  if (capabilities.lock_table)
    for (const std::string& mode : table_lock_modes()) EXPECT_EQ(lock_tables.count(mode), 1u) << "LOCK TABLE IN " << mode;
  // NOWAIT and SKIP LOCKED, the key-only strengths: generated where the profile lists them, never elsewhere.
  auto generated = [&](const std::string& part) {
    return std::any_of(lock_options.begin(), lock_options.end(), [&](const auto& e) { return e.first.find(part) != std::string::npos; });
  };
  const auto& waits = capabilities.lock_waits;
  EXPECT_EQ(generated("NOWAIT"), std::find(waits.begin(), waits.end(), LockWait::NoWait) != waits.end());
  EXPECT_EQ(generated("SKIP LOCKED"), std::find(waits.begin(), waits.end(), LockWait::SkipLocked) != waits.end());
  EXPECT_EQ(generated("KEY"), !capabilities.lock_strengths.empty());
  // Every upsert form the profile lists is generated, and no other.
  for (Upsert form : {Upsert::DoNothing, Upsert::DoUpdate, Upsert::Ignore, Upsert::Replace}) {
    const bool has = std::find(capabilities.upserts.begin(), capabilities.upserts.end(), form) != capabilities.upserts.end();
    EXPECT_EQ(upserts.count(form) > 0, has) << upsert_form_name(form);
  }
  EXPECT_EQ(upsert_names.count("ON CONFLICT DO UPDATE ... WHERE") > 0, capabilities.upsert_update_where);
  EXPECT_LT(share, 1.0) << "first rejected: " << first;
  EXPECT_GT(exists, 0);
  EXPECT_GT(derived, 0);
  EXPECT_GT(select_subqueries, 0);
  // Each joined write form runs where the profile says the engine has it, and is never generated elsewhere.
  EXPECT_EQ(update_joins > 0, capabilities.update_join);
  EXPECT_EQ(delete_joins > 0, capabilities.delete_join);
  EXPECT_EQ(two_table_updates > 0, capabilities.update_joined_table);
  EXPECT_EQ(two_table_deletes > 0, capabilities.delete_joined_table);
  EXPECT_GT(grouped_derived, 0);
  EXPECT_GT(joined_derived, 0);
}

}  // namespace

TEST(GeneratedStatements, AcceptedBySqlite) { check_engine("sqlite", false); }
TEST(GeneratedStatements, AcceptedByPostgresql) { check_engine("postgresql", false); }
TEST(GeneratedStatements, AcceptedByMariadb) { check_engine("mariadb", false); }

namespace {

// MERGE, truth forms, savepoints and chained transactions (issue 17), in a run of their own so that the draws above
// stay what they were: generated as the Wss and Atomicity suites generate them, asked of the profile with the server's
// version (MERGE: PostgreSQL 15+ only; chains: not SQLite). The share of MERGEs and of statements with a truth form
// among the statements run is printed, and the share of them rejected as invalid must be 0; constraint errors (a
// duplicate key from WHEN NOT MATCHED THEN INSERT) are outcomes, counted apart.
void check_merge(const std::string& engine) {
  Target* found = engine_target(engine, false);
  if (!found) GTEST_SKIP() << "no " << engine << " target in TXPROP_TARGETS";
  Target& target = *found;
  gen::Options o = issue17_options(target);
  o.merge = o.truth_forms = o.savepoints = o.chains = true;
  const EngineCapabilities& capabilities = o.engine;
  const auto g = gen::test_case(o);
  rc::Random random(11);
  int statements = 0, merges = 0, rejected = 0, failed = 0, truths = 0, truths_rejected = 0, chained = 0;
  std::string first;
  for (int i = 0; i < 150; ++i) {
    TestCase c = g(random.split(), 60).value();
    c.order = TestCase::serial_order(c.transactions);
    chained += !c.first_chain().empty();
    const History h = target.run(c);
    for (std::size_t t = 0; t < c.transactions.size(); ++t)
      for (std::size_t s = 0; s < c.transactions[t].statements.size(); ++s) {
        const Outcome& out = h.outcomes[t][s + 1];
        if (out.status == Outcome::Status::Skipped) continue;
        ++statements;
        TestCase one;
        one.transactions = {Transaction{}};
        one.transactions[0].statements = {c.transactions[t].statements[s]};
        if (!one.first_truth_form().empty()) {
          ++truths;
          const bool bad = out.failed() && out.error.cls == ErrorClass::InvalidStatement;
          truths_rejected += bad;
          if (bad && first.empty()) first = render(c.transactions[t].statements[s], Dialect::Portable) + "\n  " + summary(out);
        }
        if (!c.transactions[t].statements[s].is_merge()) continue;
        ++merges;
        const bool invalid = out.failed() && out.error.cls == ErrorClass::InvalidStatement;
        rejected += invalid;
        failed += out.failed() && !invalid;
        if (invalid && first.empty()) first = render(c.transactions[t].statements[s], Dialect::Portable) + "\n  " + summary(out);
      }
  }
  std::cout << fmt::format("[generated] {}: MERGE {} of {} statements ({:.2f}%), {} rejected as invalid ({:.2f}%), {} "
                           "failed otherwise\n",
                           target.name(), merges, statements, 100.0 * merges / std::max(1, statements), rejected,
                           100.0 * rejected / std::max(1, merges), failed);
  std::cout << fmt::format("[generated] {}: truth forms in {} of {} statements ({:.2f}%), {} rejected as invalid; {} of 150 "
                           "cases chain two transactions\n",
                           target.name(), truths, statements, 100.0 * truths / std::max(1, statements), truths_rejected, chained);
  EXPECT_EQ(rejected, 0) << "first rejected: " << first;
  EXPECT_EQ(truths_rejected, 0) << "first rejected: " << first;
  EXPECT_GT(truths, 0);
  EXPECT_EQ(merges > 0, capabilities.merge);
  EXPECT_EQ(chained > 0, capabilities.chain);
}

}  // namespace

TEST(GeneratedStatements, MergeAcceptedByPostgresql) { check_merge("postgresql"); }
TEST(GeneratedStatements, MergeNeverGeneratedOnMariadb) { check_merge("mariadb"); }
TEST(GeneratedStatements, Issue17FormsAcceptedBySqlite) { check_merge("sqlite"); }

namespace {

// Foreign keys and BOOLEAN columns (issue 17 items 3 and 2), in a run of their own like MERGE above: generated as the
// Wss and Atomicity suites generate them, on every engine. Printed: the share of cases with a key (and of each ON
// DELETE and ON UPDATE action), and the share of statements naming a BOOLEAN column and of them rejected as invalid
// (which must be 0: PostgreSQL refuses a boolean compared with a number). Every case's reset creates and fills the
// tables (a reset the engine rejects ends the test), and the share of statements rejected as invalid must be 0.
// Constraint errors (a child row naming no parent, a RESTRICT delete) are outcomes, counted apart.
void check_foreign_keys(const std::string& engine) {
  Target* found = engine_target(engine, false);
  if (!found) GTEST_SKIP() << "no " << engine << " target in TXPROP_TARGETS";
  Target& target = *found;
  gen::Options o = issue17_options(target);
  o.foreign_keys = o.booleans = true;
  const auto g = gen::test_case(o);
  rc::Random random(11);
  const int n = 150;
  int with = 0, statements = 0, in_fk_cases = 0, rejected = 0, constraint = 0, with_boolean = 0, boolean_statements = 0,
      boolean_rejected = 0;
  std::map<std::string, int> actions, update_actions;
  std::string first;
  for (int i = 0; i < n; ++i) {
    TestCase c = g(random.split(), 60).value();
    c.order = TestCase::serial_order(c.transactions);
    const bool fk = c.schema.has_foreign_keys();
    with += fk;
    std::vector<std::string> boolean_columns;
    for (const Table& t : c.schema.tables)
      for (const Column& col : t.columns)
        if (col.type == ColumnType::Boolean) boolean_columns.push_back(col.name);
    with_boolean += !boolean_columns.empty();
    for (const Table& t : c.schema.tables)
      for (const ForeignKey& k : t.foreign_keys) {
        ++actions[to_string(k.on_delete)];
        ++update_actions[to_string(k.on_update)];
      }
    const History h = target.run(c);
    for (std::size_t t = 0; t < c.transactions.size(); ++t)
      for (std::size_t s = 0; s < c.transactions[t].statements.size(); ++s) {
        const Outcome& out = h.outcomes[t][s + 1];
        if (out.status == Outcome::Status::Skipped) continue;
        ++statements;
        in_fk_cases += fk;
        const bool invalid = out.failed() && out.error.cls == ErrorClass::InvalidStatement;
        rejected += invalid;
        const std::string sql = render(c.transactions[t].statements[s], Dialect::Portable);
        if (std::any_of(boolean_columns.begin(), boolean_columns.end(),
                        [&](const std::string& b) { return sql.find(b) != std::string::npos; })) {
          ++boolean_statements;
          boolean_rejected += invalid;
        }
        constraint += fk && out.failed() && out.error.cls == ErrorClass::ConstraintViolation;
        if (invalid && first.empty()) first = render(c.transactions[t].statements[s], Dialect::Portable) + "\n  " + summary(out);
      }
  }
  std::cout << fmt::format("[generated] {}: foreign keys in {} of {} cases ({:.1f}%), {} of {} statements run in them, "
                           "{} of those failed with a constraint violation; {} statements rejected as invalid ({:.2f}%); "
                           "ON DELETE:",
                           target.name(), with, n, 100.0 * with / n, in_fk_cases, statements, constraint, rejected,
                           100.0 * rejected / std::max(1, statements));
  for (const auto& [action, count] : actions) std::cout << " " << action << " " << count;
  std::cout << "; ON UPDATE:";
  for (const auto& [action, count] : update_actions) std::cout << " " << action << " " << count;
  std::cout << "\n";
  std::cout << fmt::format("[generated] {}: BOOLEAN columns in {} of {} cases ({:.1f}%), {} of {} statements ({:.2f}%) name "
                           "one (or a column whose name contains its name), {} of those rejected as invalid\n",
                           target.name(), with_boolean, n, 100.0 * with_boolean / n, boolean_statements, statements,
                           100.0 * boolean_statements / std::max(1, statements), boolean_rejected);
  EXPECT_EQ(boolean_rejected, 0);
  EXPECT_GT(boolean_statements, 0);
  EXPECT_EQ(rejected, 0) << "first rejected: " << first;
  EXPECT_GT(with, 0);
}

}  // namespace

TEST(GeneratedStatements, ForeignKeysAcceptedBySqlite) { check_foreign_keys("sqlite"); }
TEST(GeneratedStatements, ForeignKeysAcceptedByPostgresql) { check_foreign_keys("postgresql"); }
TEST(GeneratedStatements, ForeignKeysAcceptedByMariadb) { check_foreign_keys("mariadb"); }
