#pragma once
// Which reads of a transaction ran under its own LOCK TABLE ... IN ACCESS EXCLUSIVE MODE (PostgreSQL, manual 13.3.1).
// One owner for the shape behaviour::kSsiMissesReadsUnderAccessExclusiveLock names: PostgreSQL's SSI keeps no trace of
// such reads after the transaction commits (tests/scenarios/engine_bugs/pg_ssi_access_exclusive_holder_reads_unseen.txn),
// which the Adya and WSS oracles both explain with it.
#include <cstddef>
#include <string>
#include <vector>

#include "txprop/test_case.hpp"

namespace txprop {

struct ReadUnderAccessExclusive {
  std::size_t statement = 0;  // index into Transaction::statements
  std::string table;          // the locked table it reads
};

// The statements of `t` that read a table (a SELECT, or an UPDATE, DELETE or MERGE, whose WHERE or ON reads its rows)
// that an earlier LOCK TABLE of `t` locked IN ACCESS EXCLUSIVE MODE, once per (statement, table).
std::vector<ReadUnderAccessExclusive> reads_under_access_exclusive(const Transaction& t);

}  // namespace txprop
