// The scheduler's hang limit, with an engine stand-in whose statement never returns and never waits on a lock
// (a real engine cannot be made to hang on demand). The run must end with a hang finding, the statement
// cancelled, and the other transaction rolled back. And a COMMIT whose outcome is unknown: the run ends with it, the
// transaction neither committed nor aborted.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "runner/scheduler.hpp"

using namespace txprop;

namespace {

struct Stuck {
  std::mutex m;
  std::condition_variable cv;
  bool cancelled = false;
};

class StuckSession final : public drivers::Session {
 public:
  StuckSession(Stuck& stuck, int id) : stuck_(stuck), id_(id) {}
  Outcome execute(const std::string& sql) override {
    executed.push_back(sql);
    if (sql.find("DELETE") == std::string::npos) return Outcome{};
    std::unique_lock lock(stuck_.m);
    stuck_.cv.wait(lock, [&] { return stuck_.cancelled; });
    return Outcome::failure(ErrorClass::Canceled, "57014", "canceling statement due to user request");
  }
  std::string server_id() const override { return std::to_string(id_); }
  std::vector<std::string> executed;

 private:
  Stuck& stuck_;
  int id_;
};

class StuckDriver final : public drivers::Driver {
 public:
  explicit StuckDriver(Stuck& stuck) : stuck_(stuck) {}
  Dialect dialect() const override { return Dialect::PostgreSql; }
  std::string server_version() override { return "stand-in"; }
  std::unique_ptr<drivers::Session> open_session() override { return nullptr; }
  std::vector<drivers::WaitState> probe(const std::vector<const drivers::Session*>& s) override {
    ++probes;
    return std::vector<drivers::WaitState>(s.size());  // never waiting on a lock: it just does not return
  }
  void cancel(const drivers::Session&) override {
    std::lock_guard lock(stuck_.m);
    stuck_.cancelled = true;
    stuck_.cv.notify_all();
  }
  ErrorEffect effect(const Error&) const override { return ErrorEffect::TransactionAborted; }
  void reset(const Schema&) override {}
  DatabaseState read_state(const Schema&) override { return {}; }
  std::atomic<int> probes{0};

 private:
  Stuck& stuck_;
};

}  // namespace

TEST(SchedulerHang, StatementThatNeverReturnsIsAHangFinding) {
  Stuck stuck;
  StuckDriver driver(stuck);
  runner::CompletionSignal signal;
  auto s0 = std::make_unique<StuckSession>(stuck, 1);
  auto s1 = std::make_unique<StuckSession>(stuck, 2);
  StuckSession* raw1 = s1.get();
  runner::SessionWorker w0(std::move(s0), signal, false), w1(std::move(s1), signal, false);

  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}};
  TestCase c;
  c.schema.tables = {t};
  c.transactions = {Transaction{IsolationLevel::ReadCommitted, {Statement::delete_("t")}, TxnEnd::Commit},
                    Transaction{IsolationLevel::ReadCommitted, {Statement::select("t")}, TxnEnd::Commit}};
  c.order = {1, 1, 0, 0, 0, 1};  // T1 begins and reads; T0's DELETE hangs; T1 never gets to commit
  RunOptions options;
  options.hang_limit = std::chrono::milliseconds(300);
  RunMetrics metrics;

  const auto start = std::chrono::steady_clock::now();
  const History h = runner::schedule(c, driver, {&w0, &w1}, signal, options, metrics);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  ASSERT_TRUE(h.finding);
  EXPECT_EQ(h.finding->kind, RunFinding::Kind::Hang);
  EXPECT_EQ(h.finding->step, (StepRef{0, 1}));
  EXPECT_EQ(h.outcomes[0][1].status, Outcome::Status::Hang);
  EXPECT_TRUE(stuck.cancelled);
  EXPECT_GT(driver.probes.load(), 3);  // it kept asking the server, it did not guess from a timeout
  EXPECT_LT(seconds, 5.0);
  // T1, begun and never ended, was rolled back so its session is usable again.
  ASSERT_FALSE(raw1->executed.empty());
  EXPECT_EQ(raw1->executed.back(), "ROLLBACK");
  EXPECT_EQ(h.transactions[1].fate, TxnFate::Unfinished);
}

namespace {

// A session whose COMMIT loses its connection after it was sent (the driver's CommitOutcomeUnknown), as no real
// server can be made to do on demand.
class LostCommitSession final : public drivers::Session {
 public:
  Outcome execute(const std::string& sql) override {
    if (sql != "COMMIT") return Outcome{};
    Outcome o = Outcome::failure(ErrorClass::CommitOutcomeUnknown, "40003", "connection lost during COMMIT");
    o.error.fault = Fault::Lost;
    return o;
  }
  std::string server_id() const override { return "1"; }
};

// Says of every error that it aborts the transaction (PostgreSQL's rule), so that only the scheduler's own handling
// of CommitOutcomeUnknown can keep the transaction from being recorded as aborted.
class AbortingDriver final : public drivers::Driver {
 public:
  Dialect dialect() const override { return Dialect::PostgreSql; }
  std::string server_version() override { return "stand-in"; }
  std::unique_ptr<drivers::Session> open_session() override { return nullptr; }
  std::vector<drivers::WaitState> probe(const std::vector<const drivers::Session*>& s) override {
    return std::vector<drivers::WaitState>(s.size());
  }
  void cancel(const drivers::Session&) override {}
  ErrorEffect effect(const Error&) const override { return ErrorEffect::TransactionAborted; }
  void reset(const Schema&) override {}
  DatabaseState read_state(const Schema&) override { return {}; }
};

}  // namespace

TEST(SchedulerFaults, CommitOutcomeUnknownIsNeverGuessed) {
  AbortingDriver driver;
  runner::CompletionSignal signal;
  runner::SessionWorker w0(std::make_unique<LostCommitSession>(), signal, false);
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}};
  TestCase c;
  c.schema.tables = {t};
  c.transactions = {Transaction{IsolationLevel::ReadCommitted, {Statement::delete_("t")}, TxnEnd::Commit}};
  c.order = {0, 0, 0};
  RunOptions options;
  RunMetrics metrics;
  const History h = runner::schedule(c, driver, {&w0}, signal, options, metrics);
  ASSERT_TRUE(h.finding);
  EXPECT_EQ(h.finding->kind, RunFinding::Kind::Crash);
  EXPECT_EQ(h.finding->fault, Fault::Lost);
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Unfinished);  // neither committed nor aborted
  EXPECT_EQ(h.outcomes[0][2].error.cls, ErrorClass::CommitOutcomeUnknown);
}
