// When the scheduler asks the server whether a statement waits on a lock (scheduler.cpp, lock_holders_may_exist): a
// statement sent while another transaction of the case is open is asked about after first_probe_after, one sent while
// none is (a serial replay, or the first transaction before the others begin) only after the hang safety net's
// interval, as nothing can hold a lock it asks for. A stand-in engine whose every statement takes 3 ms, so that the
// counts do not depend on a server's speed: each statement outlasts first_probe_after (300 us) ten times.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "runner/scheduler.hpp"

using namespace txprop;

namespace {

class SlowSession final : public drivers::Session {
 public:
  explicit SlowSession(int id) : id_(id) {}
  Outcome execute(const std::string&) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    return Outcome{};
  }
  std::string server_id() const override { return std::to_string(id_); }

 private:
  int id_;
};

class CountingDriver final : public drivers::Driver {
 public:
  Dialect dialect() const override { return Dialect::PostgreSql; }
  std::string server_version() override { return "stand-in"; }
  std::unique_ptr<drivers::Session> open_session() override { return nullptr; }
  std::vector<drivers::WaitState> probe(const std::vector<const drivers::Session*>& s) override {
    ++probes;
    return std::vector<drivers::WaitState>(s.size());  // never waiting
  }
  void cancel(const drivers::Session&) override {}
  ErrorEffect effect(const Error&) const override { return ErrorEffect::TransactionAborted; }
  void reset(const Schema&) override {}
  DatabaseState read_state(const Schema&) override { return {}; }
  std::atomic<int> probes{0};
};

// Two transactions of two UPDATEs each, in `order`; the number of wait probes the run made.
int probes_for(std::vector<int> order) {
  CountingDriver driver;
  runner::CompletionSignal signal;
  runner::SessionWorker w0(std::make_unique<SlowSession>(1), signal, false);
  runner::SessionWorker w1(std::make_unique<SlowSession>(2), signal, false);
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}};
  TestCase c;
  c.schema.tables = {t};
  const Statement update = Statement::update("t", {{"v", Expr::lit(1)}});
  c.transactions = {Transaction{IsolationLevel::ReadCommitted, {update, update}, TxnEnd::Commit},
                    Transaction{IsolationLevel::ReadCommitted, {update, update}, TxnEnd::Commit}};
  c.order = std::move(order);
  RunOptions options;
  RunMetrics metrics;
  const History h = runner::schedule(c, driver, {&w0, &w1}, signal, options, metrics);
  EXPECT_FALSE(h.finding);
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Committed);
  EXPECT_EQ(h.transactions[1].fate, TxnFate::Committed);
  return driver.probes.load();
}

}  // namespace

TEST(SchedulerProbes, SerialTransactionsAreNotAskedAboutWaits) {
  // T0 whole, then T1 whole: no statement has another transaction open beside it. Each of the four UPDATEs outlasts
  // first_probe_after, so asking early would make at least four probes; the safety net (20 ms) none here.
  EXPECT_LT(probes_for({0, 0, 0, 0, 1, 1, 1, 1}), 4);
}

TEST(SchedulerProbes, StatementsBesideAnOpenTransactionAreAskedEarly) {
  // T1's UPDATEs run while T0 is open (begun, not ended): a lock they ask for may be T0's, so each is asked about
  // after first_probe_after.
  EXPECT_GE(probes_for({0, 0, 1, 1, 1, 0, 0, 1}), 2);
}
