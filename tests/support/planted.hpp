// Building blocks of planted histories for txprop's own tests (no server): statements written as SQL, a table t(a, b),
// and the history of a case whose every step completes in its submitted order.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "txprop/history.hpp"
#include "txprop/sql_parser.hpp"
#include "txprop/test_case.hpp"
#include "txprop/wss.hpp"

namespace txprop::test {

// A transaction of these statements, parsed from the portable dialect.
inline Transaction txn(std::initializer_list<const char*> statements) {
  Transaction t;
  for (const char* s : statements) t.statements.push_back(parse_statement(s));
  return t;
}

// The same at `level`.
inline Transaction txn(IsolationLevel level, std::initializer_list<const char*> statements) {
  Transaction t = txn(statements);
  t.isolation = level;
  return t;
}

// WSS's part of a profile that promises write-serializability and compares every read (a planted case judged as strictly as
// the oracle can judge it, whatever the engine documents).
inline WssBehaviour strict_wss() {
  WssBehaviour p;
  p.reads_serializable = true;
  p.source = "test: WSS holds";
  return p;
}

// t(a INTEGER NOT NULL, b INTEGER NOT NULL) with these rows.
inline Table table_ab(std::vector<Row> rows) {
  Table t;
  t.name = "t";
  t.columns = {{"a", ColumnType::Integer, false}, {"b", ColumnType::Integer, false}};
  t.rows = std::move(rows);
  return t;
}

// `c` as if every step completed, in its submitted order, and each transaction ended as it says (committed or
// rolled back); the outcomes are empty, for the test to write in.
inline History completed_in_order(const TestCase& c) {
  History h;
  h.test_case = c;
  std::vector<std::size_t> next(c.transactions.size(), 0);
  for (const Transaction& t : c.transactions) {
    h.outcomes.emplace_back(t.step_count());
    h.was_blocked.emplace_back(t.step_count(), false);
    h.submitted_at.emplace_back(t.step_count(), 0);
    h.transactions.push_back(
        TxnResult{t.end == TxnEnd::Commit ? TxnFate::Committed : TxnFate::RolledBack, std::nullopt, {}, -1});
  }
  for (int t : c.order) {
    const auto ti = static_cast<std::size_t>(t);
    const std::size_t step = next[ti]++;
    h.submitted_at[ti][step] = static_cast<int>(h.events.size());
    h.events.push_back(Event{Event::Kind::Completed, StepRef{t, static_cast<int>(step)}});
    if (step + 1 == c.transactions[ti].step_count()) h.transactions[ti].end_event = static_cast<int>(h.events.size()) - 1;
  }
  return h;
}

// A statement's result as a planted history writes it in: rows under `columns`, or only an affected-row count.
inline Outcome rows_outcome(std::vector<std::string> columns, std::vector<Row> rows) {
  Outcome o;
  o.columns = std::move(columns);
  o.rows = std::move(rows);
  return o;
}
inline Outcome affected(std::int64_t n) {
  Outcome o;
  o.affected = n;
  return o;
}

}  // namespace txprop::test
