// Generators without a server: every case is valid, the statement mix is what the options say, and shrinking
// reaches the minimal case of a planted failure.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <functional>
#include <map>
#include <set>

#include "txprop/generators.hpp"
#include "txprop/sql.hpp"

using namespace txprop;

namespace {

std::vector<TestCase> sample(const gen::Options& o, int n, std::uint64_t seed = 42) {
  std::vector<TestCase> out;
  rc::Random random(seed);
  const auto g = gen::test_case(o);
  for (int i = 0; i < n; ++i) out.push_back(g(random.split(), i % 100).value());
  return out;
}

std::string kind_of(const Statement& s) {
  if (s.kind == StatementKind::Select)
    return s.lock == LockMode::Update ? "SELECT FOR UPDATE" : s.lock == LockMode::Share ? "SELECT FOR SHARE" : "SELECT";
  return to_string(s.kind);
}

}  // namespace

TEST(Generators, EveryCaseIsValid) {
  for (bool locking_reads : {false, true}) {
    gen::Options o;
    o.engine.locking_reads = locking_reads;
    for (const TestCase& c : sample(o, 500)) {
      ASSERT_EQ(c.validate(), "") << c;
      EXPECT_GE(c.transactions.size(), 2u);
      EXPECT_LE(c.transactions.size(), 5u);
      EXPECT_LE(c.schema.tables.size(), 3u);
      for (const auto& t : c.transactions) {
        EXPECT_GE(t.statements.size(), 1u);
        EXPECT_LE(t.statements.size(), 5u);
        for (const auto& s : t.statements) {
          if (!locking_reads) EXPECT_EQ(s.lock, LockMode::None) << "no locking reads where the engine has none";
          // Subqueries never read the statement's own table (MySQL error 1093).
          auto tables = s.tables();
          EXPECT_EQ(std::count(tables.begin(), tables.end(), s.table), 1);
        }
      }
    }
  }
}

TEST(Generators, MixIsWriteHeavyAndWithinBounds) {
  gen::Options o;
  std::map<std::string, int> mix;
  std::map<std::size_t, int> txn_counts;
  int statements = 0, with_where = 0, rollbacks = 0, txns = 0;
  for (const TestCase& c : sample(o, 2000, 7)) {
    ++txn_counts[c.transactions.size()];
    for (const auto& t : c.transactions) {
      ++txns;
      rollbacks += t.end == TxnEnd::Rollback;
      for (const auto& s : t.statements) {
        ++mix[kind_of(s)];
        ++statements;
        with_where += s.where.has_value();
      }
    }
  }
  std::string report = "statement mix over " + std::to_string(statements) + " statements:";
  for (const auto& [k, n] : mix) report += " " + k + "=" + std::to_string(100.0 * n / statements).substr(0, 4) + "%";
  report += "; transactions per case:";
  for (const auto& [k, n] : txn_counts) report += " " + std::to_string(k) + "=" + std::to_string(n);
  std::cout << report << "\n";
  const double writes = mix["INSERT"] + mix["UPDATE"] + mix["DELETE"];
  EXPECT_GT(writes / statements, 0.65);
  EXPECT_LT(writes / statements, 0.85);
  EXPECT_NEAR(1.0 * mix["UPDATE"] / statements, 0.36, 0.04);
  EXPECT_GT(mix["SELECT FOR UPDATE"], 0);
  EXPECT_GT(mix["SELECT FOR SHARE"], 0);
  EXPECT_NEAR(1.0 * rollbacks / txns, 0.3, 0.04);
  EXPECT_GT(1.0 * with_where / (statements - mix["INSERT"]), 0.8);  // most reads and writes have a WHERE
  // Mostly two or three transactions.
  EXPECT_GT(txn_counts[2] + txn_counts[3], 2000 * 0.65);
  EXPECT_GT(txn_counts[5], 0);
}

TEST(Generators, PredicatesHitExistingRows) {
  // Predicates that name values present in the rows make transactions collide; check that a good share of
  // equality predicates match some initial row.
  gen::Options o;
  int equalities = 0, hits = 0;
  for (const TestCase& c : sample(o, 1000, 3))
    for (const auto& t : c.transactions)
      for (const auto& s : t.statements) {
        if (!s.where || s.where->kind != Expr::Kind::Binary || s.where->op != BinaryOp::Eq) continue;
        const Expr& lhs = s.where->args[0];
        const Expr& rhs = s.where->args[1];
        if (lhs.kind != Expr::Kind::Column || rhs.kind != Expr::Kind::Literal) continue;
        const Table* table = c.schema.find_table(s.table);
        if (table->rows.empty()) continue;
        ++equalities;
        const auto idx = *table->column_index(lhs.column);
        for (const Row& r : table->rows)
          if (r[idx] == rhs.literal) {
            ++hits;
            break;
          }
      }
  ASSERT_GT(equalities, 100);
  EXPECT_GT(1.0 * hits / equalities, 0.6);
}

// A planted failure: the property fails whenever some transaction deletes from table t0. In contention mode too
// (its anchored statements and rows shrink like any other).
void expect_shrinks_to_a_lone_delete(bool contention) {
  SCOPED_TRACE(contention ? "contention mode" : "default mode");
  gen::Options o;
  o.contention = contention;
  std::optional<TestCase> last_failure;
  const auto property = rc::detail::toProperty([&] {
    const TestCase c = *gen::test_case(o);
    for (const auto& t : c.transactions)
      for (const auto& s : t.statements)
        if (s.kind == StatementKind::Delete && s.table == "t0") {
          last_failure = c;
          RC_FAIL("deletes from t0");
        }
  });
  rc::detail::TestParams params;
  params.seed = 1234;
  params.maxSuccess = 200;
  const auto result = rc::detail::checkProperty(property, rc::detail::TestMetadata{}, params);
  ASSERT_TRUE(result.template is<rc::detail::FailureResult>());
  ASSERT_TRUE(last_failure);
  const TestCase& c = *last_failure;
  SCOPED_TRACE(describe(c));
  ASSERT_EQ(c.transactions.size(), 1u);
  ASSERT_EQ(c.transactions[0].statements.size(), 1u);
  const Statement& del = c.transactions[0].statements[0];
  EXPECT_EQ(del.kind, StatementKind::Delete);
  EXPECT_EQ(del.table, "t0");
  EXPECT_FALSE(del.where.has_value());
  EXPECT_EQ(c.transactions[0].end, TxnEnd::Commit);
  ASSERT_EQ(c.schema.tables.size(), 1u);
  EXPECT_TRUE(c.schema.tables[0].rows.empty());
  EXPECT_EQ(c.schema.tables[0].columns.size(), 1u);
  EXPECT_TRUE(c.schema.tables[0].indexes.empty());
}

TEST(Generators, ShrinkingReachesTheMinimalCase) {
  expect_shrinks_to_a_lone_delete(false);
  expect_shrinks_to_a_lone_delete(true);
}

TEST(Generators, ShrinkMovesTowardSerialOrder) {
  TestCase c;
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}};
  c.schema.tables = {t};
  c.transactions = {Transaction{IsolationLevel::Serializable, {Statement::select("t")}, TxnEnd::Commit},
                    Transaction{IsolationLevel::Serializable, {Statement::select("t")}, TxnEnd::Commit}};
  c.order = {0, 1, 0, 1, 0, 1};
  bool serial = false;
  for (const TestCase& s : gen::shrink_test_case(c)) {
    EXPECT_EQ(s.validate(), "");
    if (s.transactions.size() == 2 && s.transactions[0].statements.size() == 1 &&
        s.transactions[1].statements.size() == 1) {
      EXPECT_LT(gen::context_switches(s.order), gen::context_switches(c.order));
      serial = serial || gen::context_switches(s.order) == 1;
    }
  }
  EXPECT_TRUE(serial);
}

// Mixed levels are off by default; with them on, cases mix the given levels, the first transaction keeps the suite's
// level, and shrinking offers every other transaction at the first one's level.
TEST(Generators, MixedLevelsAreOptionalAndShrinkTowardTheSuiteLevel) {
  gen::Options o;
  o.isolation = IsolationLevel::Serializable;
  for (const TestCase& c : sample(o, 200))
    for (const auto& t : c.transactions) EXPECT_EQ(t.isolation, IsolationLevel::Serializable);
  o.mixed_levels = {IsolationLevel::ReadUncommitted, IsolationLevel::Serializable};
  int mixed = 0;
  for (const TestCase& c : sample(o, 200)) {
    ASSERT_EQ(c.transactions.front().isolation, IsolationLevel::Serializable);
    bool any_other = false;
    for (const auto& t : c.transactions) any_other = any_other || t.isolation == IsolationLevel::ReadUncommitted;
    if (!any_other) continue;
    ++mixed;
    const auto candidates = gen::shrink_test_case(c);
    EXPECT_TRUE(std::any_of(candidates.begin(), candidates.end(), [&](const TestCase& x) {
      return x.transactions.size() == c.transactions.size() &&
             std::count_if(x.transactions.begin(), x.transactions.end(),
                           [](const Transaction& t) { return t.isolation == IsolationLevel::ReadUncommitted; }) <
                 std::count_if(c.transactions.begin(), c.transactions.end(),
                               [](const Transaction& t) { return t.isolation == IsolationLevel::ReadUncommitted; });
    }));
  }
  EXPECT_GT(mixed, 50) << "cases with a second level among 200";
}

// A cluster's cases (gen::Options::nodes): transaction i on node i mod nodes, the rest drawn as on one server, and
// shrinking offers the case with one node's transactions moved to a lower node.
TEST(Generators, ClusterPlacementSpreadsAndShrinksTowardFewerNodes) {
  gen::Options one;
  gen::Options three;
  three.nodes = 3;
  const auto plain = sample(one, 100);
  const auto placed = sample(three, 100);
  for (std::size_t k = 0; k < placed.size(); ++k) {
    TestCase unplaced = placed[k];
    for (std::size_t i = 0; i < unplaced.transactions.size(); ++i) {
      EXPECT_EQ(placed[k].transactions[i].node, static_cast<int>(i % 3));
      EXPECT_EQ(plain[k].transactions[i].node, -1);
      unplaced.transactions[i].node = -1;
    }
    EXPECT_EQ(unplaced, plain[k]);
    const std::set<int> nodes_before = [&] {
      std::set<int> n;
      for (const auto& t : placed[k].transactions) n.insert(t.node);
      return n;
    }();
    const auto candidates = gen::shrink_test_case(placed[k]);
    EXPECT_TRUE(std::any_of(candidates.begin(), candidates.end(), [&](const TestCase& x) {
      std::set<int> n;
      for (const auto& t : x.transactions) n.insert(t.node);
      return x.transactions.size() == placed[k].transactions.size() && n.size() + 1 == nodes_before.size();
    }));
  }
}

// Contention mode (gen::Options::contention): every case stays valid and the statement mix stays what the weights say,
// while statements of different transactions name the same table and the same values far more often. The static
// share printed here is a proxy (same table, one writes, and a shared literal or a statement over the whole table);
// the measured share of contended runs is the "contended" tag of the Adya suites (TXPROP_CONTENTION=1).
TEST(Generators, ContentionModeKeepsVarietyAndSharesRows) {
  auto measure = [](bool contention) {
    gen::Options o;
    o.contention = contention;
    std::map<std::string, int> mix;
    int statements = 0, shared = 0;
    const auto cases = sample(o, 1000, 11);
    for (const TestCase& c : cases) {
      EXPECT_EQ(c.validate(), "") << c;
      // (transaction, table, wrote, literals named)
      struct Use {
        std::size_t txn;
        std::string table;
        bool write;
        std::set<std::string> literals;
        bool whole;
      };
      std::vector<Use> uses;
      for (std::size_t t = 0; t < c.transactions.size(); ++t)
        for (const auto& s : c.transactions[t].statements) {
          ++mix[kind_of(s)];
          ++statements;
          Use u{t, s.table, s.is_write(), {}, !s.where && s.kind != StatementKind::Insert};
          std::function<void(const Expr&)> walk = [&](const Expr& e) {
            if (e.kind == Expr::Kind::Literal) u.literals.insert(e.literal.to_string());
            for (const Expr& a : e.args) walk(a);
          };
          if (s.where) walk(*s.where);
          for (const auto& a : s.assignments) walk(a.value);
          for (const auto& row : s.values)
            for (const auto& v : row) walk(v);
          uses.push_back(std::move(u));
        }
      bool hit = false;
      for (std::size_t i = 0; i < uses.size() && !hit; ++i)
        for (std::size_t j = i + 1; j < uses.size() && !hit; ++j) {
          const Use &a = uses[i], &b = uses[j];
          if (a.txn == b.txn || a.table != b.table || !(a.write || b.write)) continue;
          bool common = a.whole || b.whole;
          for (const auto& l : a.literals) common = common || b.literals.count(l);
          hit = common;
        }
      shared += hit;
    }
    return std::make_pair(mix, 1.0 * shared / cases.size());
  };
  const auto [plain_mix, plain_share] = measure(false);
  const auto [hot_mix, hot_share] = measure(true);
  std::cout << "cases whose transactions share a table and a value with a write: " << 100 * plain_share
            << "% by default, " << 100 * hot_share << "% in contention mode\n";
  EXPECT_GT(hot_share, plain_share);
  EXPECT_GT(hot_share, 0.8);
  int plain_total = 0, hot_total = 0;
  for (const auto& [k, n] : plain_mix) plain_total += n;
  for (const auto& [k, n] : hot_mix) hot_total += n;
  for (const auto& [k, n] : plain_mix) {
    const auto it = hot_mix.find(k);
    ASSERT_NE(it, hot_mix.end()) << k;
    EXPECT_NEAR(1.0 * it->second / hot_total, 1.0 * n / plain_total, 0.03) << k;
  }
}

// Every literal a generated statement compares with a column, sets it to or inserts into it is of the column's type
// (issue 23: contention mode drew a value remembered from another table's column of the same name, `c3 IN (0)` on a
// TEXT column, which PostgreSQL rejects). Checked with every statement form on, in both modes.
TEST(Generators, LiteralsAreOfTheColumnsType) {
  auto type_of = [](const Schema& schema, const std::string& table, const std::string& column) -> const Column* {
    const Table* t = schema.find_table(table);
    if (!t) return nullptr;
    const auto i = t->column_index(column);
    return i ? &t->columns[*i] : nullptr;
  };
  auto of_type = [](const Value& v, const Column& c) {
    return v.is_null() || (c.type == ColumnType::Text ? v.type() == ValueType::Text : v.is_number());
  };
  for (const bool contention : {false, true}) {
    gen::Options o;
    o.contention = contention;
    o.rich_statements = o.derived_inner_forms = true;
    o.engine.update_join = o.engine.delete_join = o.engine.update_joined_table = o.engine.delete_joined_table = true;
    int checked = 0;
    std::vector<std::string> wrong;
    for (const TestCase& c : sample(o, 3000, 23)) {
      // `scope`: the table an unqualified column belongs to at this point of the expression.
      std::function<void(const Expr&, const std::string&)> walk = [&](const Expr& e, const std::string& scope) {
        const bool compares = e.kind == Expr::Kind::Binary || e.kind == Expr::Kind::InList || e.kind == Expr::Kind::Between;
        if (compares && e.args[0].kind == Expr::Kind::Column)
          if (const Column* col = type_of(c.schema, e.args[0].table.empty() ? scope : e.args[0].table, e.args[0].column))
            for (std::size_t i = 1; i < e.args.size(); ++i)
              if (e.args[i].kind == Expr::Kind::Literal && ++checked && !of_type(e.args[i].literal, *col))
                wrong.push_back(render(e, Dialect::PostgreSql) + " (table " + scope + ")");
        const std::string inner = e.kind == Expr::Kind::Subquery || e.kind == Expr::Kind::Exists ? e.table : scope;
        for (std::size_t i = 0; i < e.args.size(); ++i)
          walk(e.args[i], e.kind == Expr::Kind::InSubquery && i > 0 ? e.table : inner);
      };
      for (const auto& t : c.transactions)
        for (const auto& s : t.statements) {
          if (s.where) walk(*s.where, s.table);
          for (const auto& a : s.assignments) {
            const std::string table = a.table.empty() ? s.table : a.table;
            if (const Column* col = type_of(c.schema, table, a.column); col && a.value.kind == Expr::Kind::Literal)
              if (++checked && !of_type(a.value.literal, *col))
                wrong.push_back("SET " + a.column + " = " + a.value.literal.to_string());
            walk(a.value, table);
          }
          for (const auto& row : s.values)
            for (std::size_t i = 0; i < row.size() && i < s.columns.size(); ++i)
              if (const Column* col = type_of(c.schema, s.table, s.columns[i]); col && row[i].kind == Expr::Kind::Literal)
                if (++checked && !of_type(row[i].literal, *col))
                  wrong.push_back("INSERT " + s.columns[i] + " = " + row[i].literal.to_string());
        }
    }
    EXPECT_GT(checked, 10000) << (contention ? "contention mode" : "default mode");
    EXPECT_TRUE(wrong.empty()) << wrong.size() << " literal(s) of another type than their column, e.g. " << wrong.front();
  }
}

// Big cuts first (issue 22): with three or more transactions the first candidates keep each pair alone, then each
// long transaction loses its later half; an integer literal offers 0 before half and one less.
TEST(Generators, ShrinkTriesBigCutsFirst) {
  TestCase c;
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}};
  c.schema.tables = {t};
  for (int i = 0; i < 4; ++i)
    c.transactions.push_back(Transaction{IsolationLevel::Serializable,
                                         {Statement::select("t"), Statement::select("t"), Statement::select("t"),
                                          Statement::select("t")},
                                         TxnEnd::Commit});
  for (int step = 0; step < 6; ++step)  // BEGIN, 4 statements, COMMIT
    for (int i = 0; i < 4; ++i) c.order.push_back(i);
  ASSERT_EQ(c.validate(), "");
  const std::vector<TestCase> candidates = gen::shrink_test_case(c);
  ASSERT_GE(candidates.size(), 10u);
  for (std::size_t i = 0; i < 6; ++i) {  // the 6 pairs of 4 transactions
    EXPECT_EQ(candidates[i].transactions.size(), 2u) << "candidate " << i;
    EXPECT_EQ(candidates[i].validate(), "");
  }
  for (std::size_t i = 6; i < 10; ++i) {  // each transaction without its later half
    EXPECT_EQ(candidates[i].transactions.size(), 4u);
    std::size_t statements = 0;
    for (const Transaction& x : candidates[i].transactions) statements += x.statements.size();
    EXPECT_EQ(statements, 14u) << "candidate " << i;
  }

  TestCase lit = c;
  lit.transactions.resize(1);
  lit.transactions[0].statements = {Statement::select("t")};
  lit.transactions[0].statements[0].where = Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(std::int64_t{9}));
  lit.order = {0, 0, 0};
  ASSERT_EQ(lit.validate(), "");
  std::vector<std::int64_t> offered;
  for (const TestCase& x : gen::shrink_test_case(lit)) {
    const auto& st = x.transactions[0].statements;
    if (st.size() == 1 && st[0].where && st[0].where->args.size() == 2 &&
        st[0].where->args[1].kind == Expr::Kind::Literal)
      offered.push_back(st[0].where->args[1].literal.as_int());
  }
  EXPECT_EQ(offered, (std::vector<std::int64_t>{0, 4, 8}));
}
