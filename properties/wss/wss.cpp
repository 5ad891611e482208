#include "txprop/wss.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "txprop/behaviours.hpp"
#include "txprop/comparison.hpp"
#include "txprop/sql.hpp"
#include "txprop/table_locks.hpp"
#include "txprop/txn_start.hpp"

namespace txprop {

namespace {

// One transaction of a serial replay and how it maps back to the concurrent run.
struct Replayed {
  int original = 0;       // transaction index in the concurrent run
  std::size_t steps = 0;  // statements replayed (all, or those before the failing one)
  std::vector<bool> placeholder;  // per statement: not compared (stmt-level: replaced by one without effect; tx-level:
                                  // undone by a ROLLBACK TO SAVEPOINT)
};

struct SerialCase {
  TestCase test_case;
  std::vector<Replayed> map;
};

std::string order_text(const std::vector<int>& order) {
  std::string out;
  for (int t : order) out += (out.empty() ? "T" : ", T") + std::to_string(t);
  return out;
}

// tx-level: transactions whole in `order`; an aborted one up to its failing statement, then rolled back.
SerialCase tx_serial(const History& h, const std::vector<int>& order) {
  SerialCase s;
  s.test_case.schema = h.test_case.schema;
  for (int t : order) {
    Transaction tx = h.test_case.transactions[static_cast<std::size_t>(t)];
    const TxnResult& r = h.transactions[static_cast<std::size_t>(t)];
    if (r.fate == TxnFate::Aborted) {
      const std::size_t failed = static_cast<std::size_t>(r.failed_step->index);
      // Statements 1..failed-1 ran; an abort at the end step (e.g. a failing COMMIT) keeps them all.
      tx.statements.resize(std::min(tx.statements.size(), failed == 0 ? 0 : failed - 1));
      tx.end = TxnEnd::Rollback;
    }
    // A statement a ROLLBACK TO SAVEPOINT undid runs in the replay but its outcome is not compared: the rollback
    // released the locks it took (InnoDB, seen on MariaDB 10.11.19: a DELETE waiting on the key a failed duplicate-key
    // INSERT locked resumed at that INSERT's ROLLBACK TO, before its transaction committed), so what it met belongs to
    // the moment it ran, not to its transaction's end. Its effects were undone, which the final state still checks.
    std::vector<bool> undone = tx.undone_by_savepoints();
    s.map.push_back(Replayed{t, tx.statements.size(), std::move(undone)});
    s.test_case.transactions.push_back(std::move(tx));
  }
  s.test_case.order = TestCase::serial_order(s.test_case.transactions);
  return s;
}

// stmt-level: the committed transactions' statements as autocommit statements, transactions in `order`. A savepoint
// statement or LOCK TABLE, and a statement that a ROLLBACK TO SAVEPOINT undid, has no effect on the transaction's outcome: each is
// replaced by a read that reads nothing (SAVEPOINT itself is an error outside a transaction on PostgreSQL), and not
// compared.
SerialCase stmt_serial(const History& h, const std::vector<int>& committed_order) {
  SerialCase s;
  s.test_case.schema = h.test_case.schema;
  for (int t : committed_order) {
    Transaction tx = h.test_case.transactions[static_cast<std::size_t>(t)];
    tx.autocommit = true;
    std::vector<bool> placeholder = tx.undone_by_savepoints();
    for (std::size_t i = 0; i < tx.statements.size(); ++i) {
      // LOCK TABLE too: PostgreSQL rejects it outside a transaction block, and it changes no row.
      placeholder[i] = placeholder[i] || tx.statements[i].is_savepoint() || tx.statements[i].kind == StatementKind::LockTable;
      if (placeholder[i] && !s.test_case.schema.tables.empty())
        tx.statements[i] = Statement::select(s.test_case.schema.tables.front().name,
                                             Expr::binary(BinaryOp::Eq, Expr::lit(1), Expr::lit(0)));
    }
    s.map.push_back(Replayed{t, tx.statements.size(), std::move(placeholder)});
    s.test_case.transactions.push_back(std::move(tx));
  }
  s.test_case.order = TestCase::serial_order(s.test_case.transactions);
  return s;
}

// tx-level as tx_serial, but `reader` (right after `holder` in `order`) takes its snapshot before `holder` ends: its
// BEGIN and first statement are submitted before the holder's COMMIT (the statement may wait for the holder's locks, as
// a statement that takes the snapshot and then waits does on PostgreSQL), and it runs at REPEATABLE READ, which is
// PostgreSQL's SERIALIZABLE without the rw-conflict checks (manual 13.2.3: Serializable "works exactly the same as
// Repeatable Read except that it also monitors for conditions which could make execution ... inconsistent"). Its
// reads so miss exactly the holder's writes, and see every other transaction before it in `order`.
SerialCase overlapped_serial(const History& h, const std::vector<int>& order, int holder, int reader) {
  SerialCase s = tx_serial(h, order);
  const auto k_holder = std::find(order.begin(), order.end(), holder) - order.begin();
  const auto k_reader = std::find(order.begin(), order.end(), reader) - order.begin();
  if (k_reader != k_holder + 1) return s;  // the search glues them: never here
  Transaction& r = s.test_case.transactions[static_cast<std::size_t>(k_reader)];
  if (r.statements.empty()) return s;
  r.isolation = IsolationLevel::RepeatableRead;
  // The serial order lists each transaction's steps together: move the reader's first two (BEGIN, its first
  // statement) before the holder's last (its end).
  std::vector<int>& steps = s.test_case.order;
  const auto holder_end = std::find(steps.begin(), steps.end(), static_cast<int>(k_reader)) - 1;
  std::rotate(holder_end, holder_end + 1, holder_end + 3);
  return s;
}

}  // namespace

namespace {

// For each table, the one table that stands for its group of tables joined by foreign keys. A write to a referenced
// table writes the referencing rows (ON DELETE CASCADE, SET NULL) or reads them (RESTRICT, NO ACTION), and a write to
// a referencing table reads the referenced one, so for ordering the group is one table:
// https://www.postgresql.org/docs/15/ddl-constraints.html#DDL-CONSTRAINTS-FK.
std::map<std::string, std::string> foreign_key_groups(const Schema& schema) {
  std::map<std::string, std::string> group;
  for (const Table& table : schema.tables) group[table.name] = table.name;
  std::function<std::string(const std::string&)> root = [&](const std::string& t) {
    return group[t] == t ? t : group[t] = root(group[t]);
  };
  for (const Table& table : schema.tables)
    for (const ForeignKey& key : table.foreign_keys) {
      const std::string child = root(table.name), parent = root(key.table);
      if (child != parent) group[std::max(child, parent)] = std::min(child, parent);
    }
  for (auto& [table, representative] : group) representative = root(table);
  return group;
}

}  // namespace

bool commute_in_serial_replay(const Transaction& a, const Transaction& b, const Schema& schema) {
  const std::map<std::string, std::string> group = foreign_key_groups(schema);
  auto of = [&](const std::string& table) {
    const auto it = group.find(table);
    return it == group.end() ? table : it->second;
  };
  auto touched = [&](const Transaction& t, std::set<std::string>& reads, std::set<std::string>& writes) {
    for (const Statement& st : t.statements) {
      for (const std::string& table : st.tables()) reads.insert(of(table));
      // Every table the statement writes: both tables of a multi-table UPDATE or of a DELETE t, u FROM t JOIN u.
      for (const std::string& table : st.written_tables()) writes.insert(of(table));
    }
  };
  std::set<std::string> reads_a, writes_a, reads_b, writes_b;
  touched(a, reads_a, writes_a);
  touched(b, reads_b, writes_b);
  for (const auto& x : writes_a)
    if (reads_b.count(x)) return false;
  for (const auto& x : writes_b)
    if (reads_a.count(x)) return false;
  return true;
}

namespace {

// Serial orders of `committed` other than the order they committed, in lexicographic order, each class of
// equivalent orders once: two transactions that touch no common table where one of them writes commute in a serial
// replay, so an order with such a pair adjacent and descending is skipped (its ascending twin gives the same
// replay). `try_order` replays one order and says whether it matched. At most `budget` orders are replayed.
struct AnyOrderSearch {
  std::optional<std::vector<int>> found;
  int tried = 0;
  bool budget_spent = false;
};

// Two transactions the search keeps together: `second` right after `first` in every order it tries, the pair ordered
// against the others as one transaction that touches what either touches.
struct GluedPair {
  int first = 0;
  int second = 0;
};

AnyOrderSearch search_serial_orders(const History& h, const std::vector<int>& committed, int budget,
                                    bool end_order_tried,
                                    const std::function<bool(const std::vector<int>&)>& try_order,
                                    const std::optional<GluedPair>& glued = std::nullopt) {
  // Whether two committed transactions conflict, decided once per pair: the search below asks at every node.
  const std::size_t n = h.test_case.transactions.size();
  std::vector<std::vector<bool>> conflicts(n, std::vector<bool>(n, false));
  for (int a : committed)
    for (int b : committed)
      conflicts[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] =
          a != b && !commute_in_serial_replay(h.test_case.transactions[static_cast<std::size_t>(a)],
                                              h.test_case.transactions[static_cast<std::size_t>(b)],
                                              h.test_case.schema);
  std::vector<int> pool = committed;
  if (glued) {
    const auto first = static_cast<std::size_t>(glued->first), second = static_cast<std::size_t>(glued->second);
    for (std::size_t b = 0; b < n; ++b) {
      conflicts[first][b] = conflicts[b][first] = b != first && (conflicts[first][b] || conflicts[second][b]);
    }
    pool.erase(std::remove(pool.begin(), pool.end(), glued->second), pool.end());
  }
  auto conflict = [&](int a, int b) { return conflicts[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)]; };
  // The order a permutation of the pool stands for: the glued transaction right after its first.
  auto unglued = [&](std::vector<int> order) {
    if (glued) order.insert(std::find(order.begin(), order.end(), glued->first) + 1, glued->second);
    return order;
  };
  std::sort(pool.begin(), pool.end());
  AnyOrderSearch out;
  std::vector<int> perm;
  std::vector<bool> used(pool.size(), false);
  // Depth-first over prefixes; the node budget bounds the work even where almost every prefix is pruned.
  long long nodes = 0;
  const long long max_nodes = 1000LL * std::max(budget, 1);
  std::function<bool()> dfs = [&]() -> bool {
    if (++nodes > max_nodes || out.tried >= budget) {
      out.budget_spent = true;
      return true;
    }
    if (perm.size() == pool.size()) {
      const std::vector<int> order = unglued(perm);
      if (order == committed && end_order_tried) return false;  // already tried as FCRFS
      ++out.tried;
      if (try_order(order)) {
        out.found = order;
        return true;
      }
      return false;
    }
    for (std::size_t i = 0; i < pool.size(); ++i) {
      if (used[i]) continue;
      if (!perm.empty() && perm.back() > pool[i] && !conflict(perm.back(), pool[i])) continue;
      used[i] = true;
      perm.push_back(pool[i]);
      const bool stop = dfs();
      perm.pop_back();
      used[i] = false;
      if (stop) return true;
    }
    return false;
  };
  dfs();
  return out;
}

struct Mismatch {
  std::vector<Finding> findings;
  bool empty() const { return findings.empty(); }
};

// `txn`: the transaction whose statement mismatched (-1 for the final state).
void add(Mismatch& m, const std::string& kind, const std::string& text, int txn = -1) {
  auto note = [&](Finding& f) {
    if (txn >= 0 && std::find(f.transactions.begin(), f.transactions.end(), txn) == f.transactions.end())
      f.transactions.push_back(txn);
  };
  for (Finding& f : m.findings)
    if (f.kind == kind) {
      f.explanation += text;
      note(f);
      return;
    }
  Finding f;
  f.kind = kind;
  f.explanation = text;
  note(f);
  m.findings.push_back(std::move(f));
}

// Compares a serial replay with the concurrent run: final state, write outcomes, and the results of the SELECTs of
// committed transactions t with reads[t].
Mismatch compare(const History& h, const SerialCase& s, const History& r, const std::vector<bool>& reads,
                 const std::string& label) {
  Mismatch m;
  if (auto diff = compare_states(h.final_state, r.final_state, "concurrent", "serial"); !diff.empty())
    add(m, "final-state-mismatch", fmt::format("{}: final state differs\n  {}", label, diff));
  for (std::size_t k = 0; k < s.map.size(); ++k) {
    const int t = s.map[k].original;
    const Transaction& tx = h.test_case.transactions[static_cast<std::size_t>(t)];
    const bool committed = h.transactions[static_cast<std::size_t>(t)].fate == TxnFate::Committed;
    for (std::size_t i = 1; i <= s.map[k].steps; ++i) {
      if (i - 1 < s.map[k].placeholder.size() && s.map[k].placeholder[i - 1]) continue;
      const Statement& st = tx.statements[i - 1];
      const Outcome& concurrent = h.outcomes[static_cast<std::size_t>(t)][i];
      const Outcome& serial = r.outcomes[k][i];
      const std::string where = fmt::format("{}: T{}.{} {}\n    concurrent: {}\n    serial:     {}\n", label, t, i,
                                            render(st, Dialect::Portable), summary(concurrent), summary(serial));
      if (st.is_write()) {
        if (concurrent.failed() != serial.failed()) add(m, "write-outcome-mismatch", where, t);
      } else if (reads[static_cast<std::size_t>(t)] && committed && !st.depends_on_locks() &&
                 !compare_outcomes(concurrent, serial).empty()) {
        // A NOWAIT or SKIP LOCKED read is not compared: its result (or error) says which rows the others had locked,
        // which no serial replay has (PostgreSQL 15 manual, SELECT: SKIP LOCKED "provides an inconsistent view of the
        // data"). It writes nothing, so the final state and the write outcomes are still compared.
        add(m, "result-mismatch", where, t);
      }
    }
  }
  return m;
}

// The transactions of `ended` in the order of their starts (transaction_start: where each took its snapshot, after a
// wait where it read after it); ties and unknown starts keep their end order.
std::vector<int> snapshot_order(const History& h, Target& target, std::vector<int> ended) {
  const std::vector<TxnStart> starts = transaction_starts(h, target.engine(), target.config());
  auto key = [&](int t) {
    const int p = starts[static_cast<std::size_t>(t)].position;
    return p < 0 ? std::numeric_limits<int>::max() : p;
  };
  std::stable_sort(ended.begin(), ended.end(), [&](int a, int b) { return key(a) < key(b); });
  return ended;
}

// One judgement, in phases: each transaction's level, the end-order replay, the snapshot-order replay, the any-order
// search, the statement-level replay, and the standing of each mismatch. A phase that cannot finish returns why (the
// verdict is then "no verdict" with it).
class WssJudgement {
 public:
  WssJudgement(Target& target, const History& h, const WssOptions& options)
      : target_(target), h_(h), options_(options), ended_(h.end_order()), committed_(h.committed()) {}

  Verdict judge() {
    if (h_.finding) return v_.without_verdict("the run did not finish");
    if (ended_.size() != h_.test_case.transactions.size()) return v_.without_verdict("a transaction did not end");
    read_levels();
    for (auto phase : {&WssJudgement::end_order, &WssJudgement::snapshot_order_replay, &WssJudgement::any_order,
                       &WssJudgement::xid_assigned_before_snapshot, &WssJudgement::statement_level})
      if (std::optional<std::string> why = (this->*phase)()) return v_.without_verdict(*why);
    decide_standings();
    return v_;
  }

 private:
  // Each transaction is judged at its own level: its reads are compared where its level makes them serializable; a
  // mismatch's standing is decided at the end; and any serial order is tried where some committed transaction's level
  // is serializable but not in commit order.
  void read_levels() {
    const std::size_t n = h_.test_case.transactions.size();
    reads_.assign(n, false);
    for (std::size_t t = 0; t < n; ++t) {
      const WssBehaviour p =
          options_.documented ? *options_.documented
                              : target_.engine().documented(h_.test_case.transactions[t].isolation, target_.config()).wss;
      profiles_.push_back(p);
      reads_[t] = p.reads_serializable;
      if (h_.transactions[t].fate != TxnFate::Committed) continue;
      any_serial_order_ = any_serial_order_ || p.any_serial_order;
    }
  }

  // FCRFS: the order in which transactions ended.
  std::optional<std::string> end_order() {
    const SerialCase fcrfs = tx_serial(h_, ended_);
    const History fcrfs_run = target_.run(fcrfs.test_case);
    if (fcrfs_run.finding) return "the serial replay did not finish: " + fcrfs_run.finding->detail;
    const std::string fcrfs_label = "tx-level serial replay in end order (" + order_text(ended_) + ")";
    mismatch_ = compare(h_, fcrfs, fcrfs_run, reads_, fcrfs_label);
    matched_order_ = committed_;
    tried_orders_ = {"end order (" + order_text(ended_) + ")"};
    return std::nullopt;
  }

  // Snapshot order: where no committed transaction's level promises WSS in the order transactions ended, a history
  // whose writes equal the serial replay in the order the transactions took their snapshots (transaction_start: the
  // engine's snapshot point) is what a snapshot level gives (PostgreSQL 15 manual 13.2.2: a REPEATABLE READ
  // transaction sees "a snapshot as of the start of the first non-transaction-control statement", and its writes that
  // would overwrite a later commit fail; READ COMMITTED, where no order is promised, is tried the same way).
  std::optional<std::string> snapshot_order_replay() {
    const bool commit_order_promised = std::all_of(committed_.begin(), committed_.end(), [&](int t) {
      return profiles_[static_cast<std::size_t>(t)].write_serializable;
    });
    // (Where some level is serializable in no particular order, the search below tries every order, this one
    // included.)
    if (mismatch_.empty() || commit_order_promised || any_serial_order_) return std::nullopt;
    const std::vector<int> by_start = snapshot_order(h_, target_, ended_);
    if (by_start == ended_) return std::nullopt;
    const SerialCase s = tx_serial(h_, by_start);
    const History r = target_.run(s.test_case);
    if (r.finding) return "the snapshot-order serial replay did not finish: " + r.finding->detail;
    tried_orders_.push_back("snapshot order (" + order_text(by_start) + ")");
    if (!compare(h_, s, r, reads_, "").empty()) return std::nullopt;
    mismatch_ = {};
    matched_order_.clear();
    for (int t : by_start)
      if (h_.transactions[static_cast<std::size_t>(t)].fate == TxnFate::Committed) matched_order_.push_back(t);
    v_.note = fmt::format("matched the serial order of their snapshots {} (not the order they ended: {})",
                          order_text(by_start), order_text(ended_));
    v_.tags.push_back("snapshot-serial-order");
    return std::nullopt;
  }

  // The end-order replay also holds the aborted and rolled-back transactions (up to where they failed); the serial
  // orders below hold only the committed ones, as serializability promises nothing about the others (an aborted
  // PostgreSQL SSI transaction may have read what no serial order explains). So the committed transactions in end
  // order are a replay of their own when anything else ended.
  // Replays serial orders of the committed transactions until one compares equal to the history, each order replayed
  // as `replay_of` builds it (tx_serial, or overlapped_serial for the known bug), `glued` kept together. A replay that
  // did not finish (a lost connection, a hang) says nothing about its order: the search stops there, with `unfinished`
  // set, rather than counting that order as one that does not match.
  AnyOrderSearch search_replayed_orders(bool end_order_tried,
                                        const std::function<SerialCase(const std::vector<int>&)>& replay_of,
                                        std::optional<std::string>& unfinished,
                                        const std::optional<GluedPair>& glued = std::nullopt) {
    return search_serial_orders(
        h_, committed_, options_.max_orders, end_order_tried,
        [&](const std::vector<int>& perm) {
          if (unfinished) return false;
          const SerialCase s = replay_of(perm);
          const History r = target_.run(s.test_case);
          if (r.finding) {
            unfinished = r.finding->detail;
            return false;
          }
          return compare(h_, s, r, reads_, "").empty();
        },
        glued);
  }

  std::optional<std::string> any_order() {
    const bool end_order_tried = committed_ == ended_;
    if (mismatch_.empty() || !any_serial_order_ || (committed_.size() <= 1 && end_order_tried)) return std::nullopt;
    // Serializable but maybe not in commit order: look for any serial order of the committed transactions (a replay
    // that did not finish leaves the case without a verdict).
    std::optional<std::string> unfinished;
    const AnyOrderSearch search =
        search_replayed_orders(end_order_tried, [&](const std::vector<int>& perm) { return tx_serial(h_, perm); },
                               unfinished);
    if (unfinished) return "a serial replay of the order search did not finish: " + *unfinished;
    const int tried = search.tried;
    if (!search.found && search.budget_spent)
      return fmt::format("no verdict: {} transactions exceed the search budget ({} serial orders tried, none matched)",
                         committed_.size(), tried + 1);
    if (search.found) {
      matched_order_ = *search.found;
      mismatch_ = {};
      v_.note = fmt::format("matched serial order {} (not the order they ended: {}; {} order(s) tried)",
                            order_text(matched_order_), order_text(ended_), tried + 1);
      v_.tags.push_back("non-commit-serial-order");
    } else {
      tried_orders_.push_back(fmt::format("every serial order of the {} committed transactions ({} tried)",
                                          committed_.size(), tried + 1));
    }
    return std::nullopt;
  }

  // A known engine bug (behaviour::kSsiIgnoresXidAssignedBeforeSnapshot, where the levels of both transactions below
  // list it): a committed transaction X that ran LOCK TABLE ... IN ACCESS EXCLUSIVE MODE before its snapshot
  // (table_locks.hpp) is invisible to PostgreSQL SSI's conflict-out check, so a concurrent reader R that missed X's
  // writes is never linked to X (docs/engine_bugs/postgresql_ssi_access_exclusive.md): R's reads of X's writes are
  // then what snapshot isolation gives, and SSI still checks everything else. Where no serial order matched, for each
  // such X and each other committed R that took its snapshot before X ended (transaction_start, X's end event: facts
  // of the history), the orders with R right after X are replayed with R reading at a snapshot taken before X's end
  // (overlapped_serial), everything compared: final state, write outcomes, every read. An order that matches explains
  // the mismatch by exactly that one missing link: counted as the bug, with the profile's source; else it stands.
  std::optional<std::string> xid_assigned_before_snapshot() {
    if (mismatch_.empty() || !any_serial_order_) return std::nullopt;
    for (const UnlinkedReader& pair : unlinked_readers()) {
      std::optional<std::string> unfinished;
      const AnyOrderSearch search = search_replayed_orders(
          false,
          [&](const std::vector<int>& perm) { return overlapped_serial(h_, perm, pair.holder, pair.reader); },
          unfinished, GluedPair{pair.holder, pair.reader});
      if (unfinished) return "a serial replay of the known-bug search did not finish: " + *unfinished;
      if (!search.found) continue;
      for (Finding& f : mismatch_.findings)
        f.explanation += fmt::format(
            "Mechanism ({}): T{} ran LOCK TABLE {} IN ACCESS EXCLUSIVE MODE (T{}.{}) before its snapshot, which gave it "
            "its xid before PostgreSQL's SSI tracked it, so SSI ignores readers that miss its writes; serial order {} "
            "matches everything (final state, write outcomes, every read) with T{} reading at a snapshot taken before "
            "T{} ended, as it did (replayed at REPEATABLE READ).\n",
            behaviour::kSsiIgnoresXidAssignedBeforeSnapshot, pair.holder, pair.lock.table, pair.holder,
            pair.lock.statement + 1, order_text(*search.found), pair.reader, pair.holder);
      known_bug_source_ = pair.source;
      v_.tags.push_back(behaviour::kSsiIgnoresXidAssignedBeforeSnapshot);
      return std::nullopt;
    }
    return std::nullopt;
  }

  // A holder of the known bug above and a reader the history shows concurrent with it: the reader took its snapshot
  // before the holder ended, and the holder took its own before the reader ended.
  struct UnlinkedReader {
    int holder = 0;
    int reader = 0;
    AccessExclusiveLockBeforeSnapshot lock;
    std::string source;  // the profile's, at the holder's level
  };
  std::vector<UnlinkedReader> unlinked_readers() const {
    auto source_at = [&](int t) -> std::optional<std::string> {
      const DocumentedBehaviour d =
          target_.engine().documented(h_.test_case.transactions[static_cast<std::size_t>(t)].isolation, target_.config());
      const auto it = d.allowed.find(behaviour::kSsiIgnoresXidAssignedBeforeSnapshot);
      return it == d.allowed.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    const std::vector<TxnStart> starts = transaction_starts(h_, target_.engine(), target_.config());
    auto started_before_end_of = [&](int a, int b) {
      const int start = starts[static_cast<std::size_t>(a)].position;
      return start >= 0 && start <= h_.transactions[static_cast<std::size_t>(b)].end_event;
    };
    std::vector<UnlinkedReader> out;
    for (int x : committed_) {
      const std::optional<AccessExclusiveLockBeforeSnapshot> lock =
          access_exclusive_lock_before_snapshot(h_.test_case.transactions[static_cast<std::size_t>(x)]);
      const std::optional<std::string> source = source_at(x);
      if (!lock || !source) continue;
      for (int r : committed_)
        if (r != x && !h_.test_case.transactions[static_cast<std::size_t>(r)].autocommit && source_at(r) &&
            started_before_end_of(r, x) && started_before_end_of(x, r))
          out.push_back(UnlinkedReader{x, r, *lock, *source});
    }
    return out;
  }

  // stmt-level: the committed statements as autocommit statements, in the order that matched.
  std::optional<std::string> statement_level() {
    if (!mismatch_.empty()) return std::nullopt;
    const SerialCase s = stmt_serial(h_, matched_order_);
    const History r = target_.run(s.test_case);
    if (r.finding) return "the statement-level replay did not finish: " + r.finding->detail;
    const std::vector<bool> no_reads(h_.test_case.transactions.size(), false);
    mismatch_ = compare(h_, s, r, no_reads, "stmt-level serial replay (" + order_text(matched_order_) + ", autocommit)");
    return std::nullopt;
  }

  // A mismatch fails only where the level of every committed transaction, and of every transaction it involves,
  // promises WSS. A statement's outcome is also judged at its own transaction's level: a write of a transaction that
  // did not commit (its outcome is compared in the end-order replay) at a level without WSS, e.g. an UPDATE at READ
  // UNCOMMITTED whose semi-consistent read saw another's uncommitted version, is that level's documented behaviour
  // even when no transaction without WSS committed (or none committed at all).
  void decide_standings() {
    const std::vector<WssBehaviour>& profiles = profiles_;
    const std::size_t n = h_.test_case.transactions.size();
    for (Finding& f : mismatch_.findings)
      f.explanation += fmt::format("Serial orders tried: {}; none matches.\n", fmt::join(tried_orders_, "; "));
    std::vector<int> committed_by_index = committed_;
    std::sort(committed_by_index.begin(), committed_by_index.end());
    for (Finding& f : mismatch_.findings) {
      std::vector<int> deciding = committed_by_index;
      deciding.insert(deciding.end(), f.transactions.begin(), f.transactions.end());
      const StandingDecision d = decide_standing(deciding, deciding, n, [&](int t) {
        return LevelStance{profiles[static_cast<std::size_t>(t)].write_serializable};
      });
      f.standing = d.standing;
      if (d.by >= 0) f.source = profiles[static_cast<std::size_t>(d.by)].source;
      // Explained by a known engine bug (xid_assigned_before_snapshot): counted with its source.
      if (f.standing == Standing::Fails && !known_bug_source_.empty()) {
        f.standing = Standing::Documented;
        f.source = known_bug_source_;
      }
      v_.findings.push_back(std::move(f));
    }
  }

  Target& target_;
  const History& h_;
  const WssOptions& options_;
  const std::vector<int> ended_, committed_;
  std::vector<WssBehaviour> profiles_;  // each transaction's level's WSS part of the profile, by index
  std::vector<bool> reads_;             // each transaction's reads are compared
  bool any_serial_order_ = false;       // some committed transaction's level is serializable in any order
  Mismatch mismatch_;
  std::vector<int> matched_order_;  // committed transactions in the serial order that matched
  std::vector<std::string> tried_orders_;
  std::string known_bug_source_;  // the profile's source, where xid_assigned_before_snapshot explained the mismatch
  Verdict v_ = Verdict::pass("wss");
};

}  // namespace

Verdict check_wss(Target& target, const History& h, const WssOptions& options) {
  return WssJudgement(target, h, options).judge();
}

}  // namespace txprop
