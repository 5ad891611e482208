// Property: write-specific serializability (WriteCheck, VLDB'25; shared/notes/seed-troc-writecheck.md part B).
// The final state of the concurrent run equals the state of a serial replay of the transactions in the order
// they ended (tx-level: committed and rolled-back transactions whole, aborted ones up to the failing statement,
// then rolled back) and of the committed transactions' statements as autocommit statements (stmt-level); every
// write's outcome (error or not) matches; where the profile says so, SELECT results match too. Where an engine is
// serializable but not in commit order (PostgreSQL SSI, SQLite WAL snapshots), any serial order of the committed
// transactions that matches passes, and the verdict says which.
#pragma once

#include <optional>
#include <string>

#include "txprop/engine.hpp"
#include "txprop/history.hpp"
#include "txprop/target.hpp"
#include "txprop/verdict.hpp"

namespace txprop {

struct WssOptions {
  // What every transaction's level documents, instead of what the target's profile says of it (planted-violation
  // tests): where write_serializable holds a mismatch fails; elsewhere it is documented behaviour with its source.
  std::optional<WssBehaviour> documented;
  // The any-order search replays at most this many serial orders (orders that differ only in the relative order of
  // transactions touching no common table with a write are tried once); past it the verdict is inconclusive.
  int max_orders = 120;
};

Verdict check_wss(Target& target, const History& h, const WssOptions& options = {});

// Whether two transactions give the same serial replay in either order, as the any-order search assumes when it
// tries one order of such a pair: neither writes a table the other reads or writes. Every table a statement writes
// counts (Statement::written_tables: both tables of a multi-table UPDATE or of a DELETE t, u FROM t JOIN u), and
// tables joined by a foreign key in `schema` count as one (a parent's DELETE writes or reads its children's rows).
bool commute_in_serial_replay(const Transaction& a, const Transaction& b, const Schema& schema);

}  // namespace txprop
