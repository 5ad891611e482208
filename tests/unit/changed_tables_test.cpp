// changed_tables (history.hpp): which tables a run may have changed, so that the next reset may leave the others as
// they are (framework/engines/reset_plan.hpp). Every write that was sent counts, failed or not, except an UPDATE or
// DELETE that succeeded and affected no row; referencing tables and cascade logs of changed tables count too.
#include <gtest/gtest.h>

#include "txprop/history.hpp"

using namespace txprop;

namespace {

Table table(const std::string& name) {
  Table t;
  t.name = name;
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}};
  t.primary_key = {"k"};
  t.rows = {{1, 1}};
  return t;
}

Expr k_is(int k) { return Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(k)); }

// One transaction with `statements`, whose outcomes are `outcomes` (BEGIN and COMMIT succeed), on tables p, c, x
// (c references p; x stands alone).
History history(std::vector<Statement> statements, std::vector<Outcome> outcomes, bool cascade_log = false) {
  Table p = table("p"), c = table("c"), x = table("x"), log = table("log");
  c.foreign_keys = {ForeignKey{{"v"}, "p", {"k"}, ReferentialAction::Cascade, ReferentialAction::NoAction}};
  if (cascade_log) x.cascade_log = CascadeLog{"log", "k", "v"};
  History h;
  h.test_case.schema.tables = {p, c, x, log};
  h.test_case.transactions = {Transaction{IsolationLevel::Serializable, std::move(statements)}};
  h.test_case.order = TestCase::serial_order(h.test_case.transactions);
  outcomes.insert(outcomes.begin(), Outcome{});
  outcomes.push_back(Outcome{});
  h.outcomes = {outcomes};
  return h;
}

Outcome affected(std::int64_t n) {
  Outcome o;
  o.affected = n;
  return o;
}

Outcome failed() { return Outcome::failure(ErrorClass::ConstraintViolation, "23505", "duplicate key"); }

Outcome skipped() {
  Outcome o;
  o.status = Outcome::Status::Skipped;
  return o;
}

using Names = std::vector<std::string>;

}  // namespace

TEST(ChangedTables, WritesThatRanCountReadsDoNot) {
  EXPECT_EQ(changed_tables(history({Statement::select("x"), Statement::select("p", std::nullopt, LockMode::Update)},
                                   {affected(-1), affected(-1)})),
            Names{});
  EXPECT_EQ(changed_tables(history({Statement::update("x", {{"v", Expr::lit(2)}}, k_is(1))}, {affected(1)})),
            Names{"x"});
  EXPECT_EQ(changed_tables(history({Statement::insert("x", {"k", "v"}, {Expr::lit(1), Expr::lit(1)})}, {failed()})),
            Names{"x"})
      << "a failed INSERT may leave a dead tuple (PostgreSQL) or an undone page";
  EXPECT_EQ(changed_tables(history({Statement::delete_("x", k_is(1))}, {skipped()})), Names{})
      << "a statement never sent changed nothing";
}

TEST(ChangedTables, AnUpdateOrDeleteThatAffectedNoRowChangedNothing) {
  EXPECT_EQ(changed_tables(history({Statement::update("x", {{"v", Expr::lit(2)}}, k_is(9)), Statement::delete_("p", k_is(9))},
                                   {affected(0), affected(0)})),
            Names{});
  EXPECT_EQ(changed_tables(history({Statement::delete_("x", k_is(9))}, {failed()})), Names{"x"})
      << "one that failed may have changed rows before it failed";
  EXPECT_EQ(changed_tables(history({Statement::update("x", {{"v", Expr::lit(2)}}, k_is(9))}, {Outcome{}})), Names{"x"})
      << "an outcome without a count (never recorded) counts as a change";
}

TEST(ChangedTables, ReferencingTablesAndCascadeLogsOfChangedTables) {
  EXPECT_EQ(changed_tables(history({Statement::delete_("p", k_is(1))}, {affected(1)})), (Names{"p", "c"}))
      << "ON DELETE CASCADE writes c";
  EXPECT_EQ(changed_tables(history({Statement::delete_("c", k_is(1))}, {affected(1)})), Names{"c"})
      << "a referencing table's writes leave the referenced one as it was";
  EXPECT_EQ(changed_tables(history({Statement::delete_("x", k_is(1))}, {affected(1)}, true)), (Names{"x", "log"}));
}
