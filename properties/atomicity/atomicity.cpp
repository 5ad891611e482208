#include "txprop/atomicity.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "txprop/comparison.hpp"
#include "txprop/engine.hpp"
#include "txprop/sql.hpp"

namespace txprop {

namespace {

// The replay sends the committed transactions' steps in their submitted order. A step that waited only for
// committed transactions waits for them again and starts when it started (a PostgreSQL statement's snapshot, an
// InnoDB scan's position, are taken when it starts, not when it resumes), so it sees what it saw. A step that
// waited through the end of a transaction that is left out has no faithful place: submitted where it was, it no
// longer waits, and what ran meanwhile now runs after it; placed where it completed, it starts later than it did.
// Then a difference is not evidence: `ambiguity` says which step. What completed before that step was submitted ran
// in the run's order, without it, so a difference there still is (`faithful_before`).
struct ReplayOrder {
  std::vector<int> order;  // original transaction indexes, one per step
  std::string ambiguity;
  std::string ambiguity_class;  // the same without names, for the run summary's count
  bool waited_for_left_out = false;  // the ambiguity is a step that waited for a left-out transaction
  // Where there is an ambiguity, the event before which the replay is faithful: the first submission of an ambiguous
  // step. A step that completed before it ran in the same order with the same committed locks in the replay.
  int faithful_before = std::numeric_limits<int>::max();
};

ReplayOrder replay_order(const History& h) {
  ReplayOrder r;
  for (int t : h.test_case.order)
    if (h.transactions[static_cast<std::size_t>(t)].fate == TxnFate::Committed) r.order.push_back(t);
  for (std::size_t t = 0; t < h.transactions.size(); ++t) {
    if (h.transactions[t].fate != TxnFate::Committed) continue;
    for (std::size_t i = 0; i < h.submitted_at[t].size(); ++i) {
      const int from = h.submitted_at[t][i];
      const int to = h.completed_at(StepRef{static_cast<int>(t), static_cast<int>(i)});
      for (std::size_t o = 0; o < h.transactions.size(); ++o) {
        const int end = h.transactions[o].end_event;
        if (h.transactions[o].fate == TxnFate::Committed || end < from || end > to) continue;
        if (from < r.faithful_before)
          r.ambiguity = fmt::format("T{}.{} waited until T{}, which is left out, had ended", t, i, o);
        r.ambiguity_class = "a step waited until a left-out transaction ended";
        r.waited_for_left_out = true;
        r.faithful_before = std::min(r.faithful_before, from);
        break;
      }
    }
  }
  return r;
}

// The event at which the first step that waited was submitted.
int first_wait(const History& h) {
  int first = std::numeric_limits<int>::max();
  for (std::size_t t = 0; t < h.was_blocked.size(); ++t)
    for (std::size_t i = 0; i < h.was_blocked[t].size(); ++i)
      if (h.was_blocked[t][i]) first = std::min(first, h.submitted_at[t][i]);
  return first;
}

// The other faithful-enough place for such a step: where it completed. A write or locking read that waited reads the
// rows as they are when it resumes (InnoDB's current read; PostgreSQL re-checks the rows it waited for), so placed
// there, after what ran while it waited, it reads what it read in the run. Only a replay without any difference is
// used (check_atomicity): it shows the run can be had without the left-out transactions, which is all "ok" claims.
ReplayOrder completion_order(const History& h) {
  struct Placed {
    double at;
    int txn;
  };
  std::vector<Placed> placed;
  std::vector<std::size_t> next(h.transactions.size(), 0);
  for (int t : h.test_case.order) {
    const std::size_t tx = static_cast<std::size_t>(t);
    const std::size_t i = next[tx]++;
    if (h.transactions[tx].fate != TxnFate::Committed) continue;
    const int from = h.submitted_at[tx][i];
    const int to = h.completed_at(StepRef{t, static_cast<int>(i)});
    bool waited_for_left_out = false;
    for (const TxnResult& o : h.transactions)
      waited_for_left_out |= o.fate != TxnFate::Committed && o.end_event >= from && o.end_event <= to;
    // Submitted when `from` events had been recorded: before event `from`; moved: at its Completed event.
    placed.push_back(Placed{waited_for_left_out ? static_cast<double>(to) : from - 0.5, t});
  }
  std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) { return a.at < b.at; });
  ReplayOrder r;
  for (const Placed& p : placed) r.order.push_back(p.txn);
  return r;
}

// The committed transactions the replay keeps, and what it leaves out: every transaction that did not commit, and in a
// committed one what a ROLLBACK TO SAVEPOINT undid (in the replay each such statement is a placeholder with no effect
// and no lock, undone_placeholder, so that every other step keeps its index and place).
struct Kept {
  std::vector<int> kept;      // original transaction indexes, in index order
  std::vector<int> renumber;  // original index -> index in the replay, -1 if left out
  std::vector<std::vector<bool>> undone;  // per kept transaction: its statements a ROLLBACK TO SAVEPOINT undid
  bool any_undone = false;
  std::string left_out;  // "T1 (aborted), T2.3 (undone by ROLLBACK TO SAVEPOINT)"
};

Kept kept_of(const History& h) {
  const TestCase& c = h.test_case;
  Kept k;
  k.renumber.assign(c.transactions.size(), -1);
  for (std::size_t t = 0; t < c.transactions.size(); ++t) {
    if (h.transactions[t].fate == TxnFate::Committed) {
      k.renumber[t] = static_cast<int>(k.kept.size());
      k.kept.push_back(static_cast<int>(t));
    } else {
      k.left_out += fmt::format("{}T{} ({})", k.left_out.empty() ? "" : ", ", t, to_string(h.transactions[t].fate));
    }
  }
  for (int t : k.kept) {
    k.undone.push_back(c.transactions[static_cast<std::size_t>(t)].undone_by_savepoints());
    for (std::size_t i = 0; i < k.undone.back().size(); ++i)
      if (k.undone.back()[i]) {
        k.any_undone = true;
        k.left_out += fmt::format("{}T{}.{} (undone by ROLLBACK TO SAVEPOINT)", k.left_out.empty() ? "" : ", ", t, i + 1);
      }
  }
  return k;
}

// What the replay sends in place of a statement a ROLLBACK TO SAVEPOINT undid. ROLLBACK TO undoes its writes and
// releases its row locks, but not the snapshot it may have taken: PostgreSQL takes a transaction's snapshot at "the
// first non-transaction-control statement" (manual 13.2.2) and SQLite its read transaction at the first access
// (lang_transaction.html), whether or not that statement is later rolled back to a savepoint. So where the snapshot is
// taken by the first statement, the placeholder is a read of the statement's table that returns nothing (it takes the
// snapshot where the undone statement took it, and no lock); elsewhere (InnoDB opens its read view at the first
// consistent read, which a write is not) a SAVEPOINT, which does nothing. A plain SELECT has nothing to undo: it stays.
Statement undone_placeholder(const Statement& undone, const VisibilityRules& rules) {
  if (undone.is_read() && undone.lock == LockMode::None) return undone;
  const std::vector<std::string> tables = undone.tables();
  if (rules.modelled && rules.snapshot_point == SnapshotPoint::FirstStatement && !tables.empty())
    return Statement::select(tables.front(), Expr::binary(BinaryOp::Eq, Expr::lit(1), Expr::lit(0)));
  return Statement::savepoint_statement(StatementKind::Savepoint, "txprop_undone");
}

// The committed transactions alone, what ROLLBACK TO undid replaced by placeholders, in `order`.
TestCase replay_case(const Target& target, const TestCase& c, const Kept& k, const ReplayOrder& order) {
  TestCase replay;
  replay.schema = c.schema;
  for (std::size_t i = 0; i < k.kept.size(); ++i) {
    Transaction tx = c.transactions[static_cast<std::size_t>(k.kept[i])];
    const VisibilityRules rules = target.engine().visibility(tx.isolation, target.config());
    for (std::size_t j = 0; j < tx.statements.size(); ++j)
      if (k.undone[i][j]) tx.statements[j] = undone_placeholder(tx.statements[j], rules);
    replay.transactions.push_back(std::move(tx));
  }
  for (int t : order.order) replay.order.push_back(k.renumber[static_cast<std::size_t>(t)]);
  return replay;
}

// The kept steps whose outcome differs between the run `h` and the replay `r`.
struct Differences {
  std::string diff;
  std::set<int> differing;  // transactions with a statement whose outcome changed
  // A NOWAIT or SKIP LOCKED read whose outcome changed: it met locks of a left-out transaction, which that held until
  // it ended (no effect of its writes). Alone that is no evidence; and the replay no longer took the locks the run
  // took, so where a step waited, which statement waited for which may differ too.
  std::string lock_dependent;
};

// Only steps that completed before the event `before` are compared.
Differences differences(const History& h, const History& r, const Kept& kept,
                        int before = std::numeric_limits<int>::max()) {
  const TestCase& c = h.test_case;
  const std::vector<std::vector<bool>>& undone = kept.undone;
  Differences d;
  for (std::size_t k = 0; k < kept.kept.size(); ++k) {
    const int t = kept.kept[k];
    const Transaction& tx = c.transactions[static_cast<std::size_t>(t)];
    for (std::size_t i = 0; i < tx.step_count(); ++i) {
      if (i >= 1 && i <= tx.statements.size() && undone[k][i - 1]) continue;  // a placeholder in the replay
      // A BEGIN that COMMIT / ROLLBACK AND CHAIN made sends nothing; in a replay without the transaction before it,
      // it is sent. Either way it affects no rows: only a failure would be evidence.
      if (i == 0 && !h.outcomes[static_cast<std::size_t>(t)][0].failed() && !r.outcomes[k][0].failed()) continue;
      if (h.completed_at(StepRef{t, static_cast<int>(i)}) >= before) continue;
      const Outcome& before = h.outcomes[static_cast<std::size_t>(t)][i];
      const Outcome& after = r.outcomes[k][i];
      if (compare_outcomes(before, after).empty()) continue;
      if (i >= 1 && i <= tx.statements.size() && tx.statements[i - 1].depends_on_locks()) {
        if (d.lock_dependent.empty())
          d.lock_dependent = fmt::format("T{}.{} ({}{}) met others' locks", t, i,
                                         tx.statements[i - 1].kind == StatementKind::LockTable ? "" : "SELECT ... ",
                                         lock_clause(tx.statements[i - 1]));
        continue;
      }
      d.differing.insert(t);
      d.diff += fmt::format("  T{}.{} {}\n    with the aborted transactions:    {}\n    without them:                     {}\n",
                            t, i, render(tx.step(i), Dialect::Portable), summary(before), summary(after));
    }
  }
  return d;
}

// Why a replay that differs is no evidence on a cluster, or "".
std::string cluster_reason(Target& target, const TestCase& c, const Kept& k, const History& r) {
  // On a cluster a statement inside a transaction reads and writes its node's state as applied so far, which may
  // miss a commit of another node that ended before it (a stale read; CI met a DELETE on node 3 that matched node 1's
  // committed INSERT in the run and not in the replay): where the engine documents that and the case spans nodes,
  // the replay is no evidence about the left-out transactions.
  std::set<int> nodes;
  for (const Transaction& t : c.transactions) nodes.insert(t.node);
  if (nodes.size() > 1)
    for (int t : k.kept)
      if (const std::string stale = target.config().profile().documented(
              c.transactions[static_cast<std::size_t>(t)].isolation, target.config()).allows(behaviour::kStaleRead);
          !stale.empty())
        return "the case spans nodes of a cluster and " + target.engine().name() + " documents stale reads: " + stale;
  // On a cluster which of two conflicting transactions fails certification depends on when each node applied the
  // other's write set, not on the submitted order alone: a kept (committed) transaction that failed certification in
  // the replay is no evidence about the left-out transactions.
  for (std::size_t i = 0; i < r.transactions.size(); ++i)
    if (r.transactions[i].fate == TxnFate::Aborted && r.transactions[i].abort_reason.cls == ErrorClass::CertificationFailure)
      return fmt::format("T{} failed certification in it, which on a cluster depends on when each node applied the "
                         "others' write sets",
                         k.kept[i]);
  return {};
}

// Aborted work seen by others is documented only where the reader's level allows dirty reads (G1a), each transaction
// at its own level: every transaction whose statements changed must be at such a level; when only the final state
// changed, some committed transaction must be (it may have written what it read dirty).
void decide_aborted_effect_standing(Finding& f, Target& target, const TestCase& c, const std::vector<int>& kept,
                                    const std::set<int>& differing) {
  auto dirty_reads = [&](int t) {
    const IsolationLevel level = c.transactions[static_cast<std::size_t>(t)].isolation;
    return target.config().profile().documented(level, target.config()).allows("G1a");
  };
  // So the changed transactions are the involved ones (one whose level proscribes dirty reads fails it); with none,
  // every kept transaction decides (it fails only when each one's level proscribes them).
  const std::vector<int> changed(differing.begin(), differing.end());
  const LevelStanding level = [&](int t) { return LevelStance{dirty_reads(t).empty()}; };
  const StandingDecision d = changed.empty() ? decide_standing(kept, kept, c.transactions.size(), level)
                                             : decide_standing({}, changed, c.transactions.size(), level);
  f.standing = d.standing;
  if (d.by >= 0) f.source = dirty_reads(d.by);
}

// Whether the committed transactions alone, in `order`, give every kept step's outcome and the final state of the run.
bool same_without_left_out(Target& target, const History& h, const Kept& kept, const ReplayOrder& order) {
  const History r = target.run(replay_case(target, h.test_case, kept, order));
  if (r.finding) return false;
  const Differences d = differences(h, r, kept);
  return d.diff.empty() && d.lock_dependent.empty() &&
         compare_states(h.final_state, r.final_state, "with the aborted transactions", "without them").empty();
}

// The ambiguous case (replay_order): the replay differs, but some step has no faithful place. Either another
// faithful-enough order gives the run without the left-out transactions (ok), or the steps that completed before the
// first ambiguous step was submitted differ (evidence, returned), or there is no verdict.
std::optional<Verdict> judge_ambiguous(Target& target, const History& h, const Kept& kept, const ReplayOrder& order,
                                       const History& r, Differences& evidence, Verdict& v) {
  if (order.waited_for_left_out && same_without_left_out(target, h, kept, completion_order(h))) {
    v.note = "left out " + kept.left_out + "; replayed with the steps that waited for them where they completed";
    return v;
  }
  const std::string why = order.ambiguity.empty() ? h.concurrent_resumption() : order.ambiguity;
  // Waiters that resumed together may have raced anywhere, also before the first ambiguous step: nothing is evidence.
  const bool raced = !h.concurrent_resumption().empty();
  evidence = order.ambiguity.empty() || raced ? Differences{} : differences(h, r, kept, order.faithful_before);
  if (!evidence.diff.empty()) {
    evidence.diff += "  (compared only the steps that completed before the first step without a faithful place was "
                     "submitted: " + why + ")\n";
    return std::nullopt;
  }
  v.tags.push_back("no verdict: the replay differs, and no replay order is faithful: " +
                   (order.ambiguity.empty() ? std::string("waiters resumed together") : order.ambiguity_class));
  return v.without_verdict("the replay differs, but " + why + ", so no replay order is faithful");
}

}  // namespace

Verdict check_atomicity(Target& target, const History& h, const AtomicityOptions& options) {
  Verdict v = Verdict::pass("atomicity");
  if (h.finding) {
    return v.without_verdict("the run did not finish");
  }
  const TestCase& c = h.test_case;
  const Kept kept = kept_of(h);
  if (kept.left_out.empty()) {
    v.note = "every transaction committed: nothing to leave out";
    return v;
  }
  // The committed transactions alone, in submitted order (replay_order). When a step waited for a left-out
  // transaction, or statements resumed together and may race differently, a difference gives no verdict.
  ReplayOrder order = replay_order(h);
  // A step that waited may have waited for locks of statements a ROLLBACK TO SAVEPOINT undid, and the replay, without
  // them, does not wait there. Which locks ROLLBACK TO releases is engine knowledge: the MySQL 8.0 manual (13.3.4)
  // says InnoDB keeps "the row locks that were stored in memory after the savepoint"; on MariaDB 10.11.19 and
  // PostgreSQL 15.18 a waiting UPDATE resumed at the ROLLBACK TO, for a row lock of an UPDATE and of a SELECT ... FOR
  // UPDATE alike (tests/scenarios/savepoint_rollback_releases_a_row_lock.txn).
  if (kept.any_undone && order.ambiguity.empty() && h.any_blocked()) {
    order.ambiguity = "a step waited while statements that a ROLLBACK TO SAVEPOINT undid may have held locks";
    order.ambiguity_class = "a step waited while undone statements may have held locks";
    order.faithful_before = first_wait(h);
  }
  const History r = target.run(replay_case(target, c, kept, order));
  if (r.finding) {
    return v.without_verdict("the replay did not finish: " + r.finding->detail);
  }
  Differences d = differences(h, r, kept);
  std::string state = compare_states(h.final_state, r.final_state, "with the aborted transactions", "without them");
  if (d.diff.empty() && state.empty()) {
    v.note = "left out " + kept.left_out;
    if (!d.lock_dependent.empty()) v.note += "; " + d.lock_dependent + " (locks of the left-out transactions)";
    return v;
  }
  // Other locks decide something else only through a wait: with no step waiting in the run or in the replay, the
  // other differences are still evidence.
  if (!d.lock_dependent.empty() && (h.any_blocked() || r.any_blocked())) {
    v.tags.push_back("no verdict: the replay differs where the left-out transactions' locks decided, and a step waited");
    return v.without_verdict("the replay differs, but " + d.lock_dependent +
                             " without the left-out transactions, so the replay took other locks than the run, and "
                             "a step waited");
  }
  if (!order.ambiguity.empty() || !h.concurrent_resumption().empty()) {
    if (std::optional<Verdict> judged = judge_ambiguous(target, h, kept, order, r, d, v)) return *judged;
    state.clear();  // the final state came after the ambiguous steps too
  }
  if (const std::string why = cluster_reason(target, c, kept, r); !why.empty()) {
    v.tags.push_back("no verdict: the replay differs, and on a cluster that is no evidence (stale reads, certification)");
    return v.without_verdict("the replay differs, but " + why);
  }
  Finding f;
  f.kind = "aborted-effect";
  f.explanation = fmt::format(
      "Left out {}; replayed the committed transactions alone, in their submitted order, on a fresh database.\n",
      kept.left_out);
  if (!d.diff.empty()) f.explanation += "Statements whose outcome changed:\n" + d.diff;
  if (!state.empty()) f.explanation += "Final state differs:\n  " + state;
  if (!options.ignore_documentation) decide_aborted_effect_standing(f, target, c, kept.kept, d.differing);
  v.findings.push_back(std::move(f));
  return v;
}

}  // namespace txprop
