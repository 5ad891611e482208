// A test case: a schema with rows, a group of transactions, and the order in which their steps are submitted.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "txprop/isolation.hpp"
#include "txprop/schema.hpp"
#include "txprop/statement.hpp"

namespace txprop {

enum class TxnEnd { Commit, Rollback };

// A transaction's steps are BEGIN, its statements, then COMMIT or ROLLBACK: step 0 is BEGIN,
// step i (1..n) is statements[i-1], step n+1 is the end.
struct Transaction {
  IsolationLevel isolation = IsolationLevel::Serializable;
  std::vector<Statement> statements;
  TxnEnd end = TxnEnd::Commit;
  // Statements run as autocommit statements: BEGIN and the end are not sent (oracles' statement-level replays).
  bool autocommit = false;

  std::size_t step_count() const { return statements.size() + 2; }
  Statement step(std::size_t index) const;
  bool is_end_step(std::size_t index) const { return index == statements.size() + 1; }
  friend bool operator==(const Transaction&, const Transaction&) = default;
};

// Addresses one step of one transaction.
struct StepRef {
  int txn = 0;
  int index = 0;
  friend auto operator<=>(const StepRef&, const StepRef&) = default;
};

struct TestCase {
  Schema schema;
  std::vector<Transaction> transactions;
  // One entry per step: the transaction it belongs to. The k-th occurrence of i is transaction i's step k,
  // so every transaction i appears exactly transactions[i].step_count() times.
  std::vector<int> order;

  // The steps in submitted order.
  std::vector<StepRef> submitted_steps() const;
  // Empty if well formed; otherwise what is wrong (order counts, unknown tables or columns).
  std::string validate() const;
  // Every transaction in sequence, T0 first: the fully serial order.
  static std::vector<int> serial_order(const std::vector<Transaction>& transactions);
  friend bool operator==(const TestCase&, const TestCase&) = default;
};

// Readable one-line description of a step, e.g. "T1.2".
std::string to_string(StepRef ref);
std::string to_string(TxnEnd end);


}  // namespace txprop
