#include "txprop/atomicity.hpp"

#include <fmt/format.h>

#include "txprop/comparison.hpp"
#include "txprop/sql.hpp"

namespace txprop {

namespace {

// Where an engine documents that aborted work may be seen by others: only READ UNCOMMITTED (dirty reads).
// PostgreSQL runs READ UNCOMMITTED as READ COMMITTED; SQLite has no such level for separate connections.
std::string documented_dirty_read_source(Engine e, IsolationLevel level) {
  if (level != IsolationLevel::ReadUncommitted) return {};
  if (e == Engine::MariaDb)
    return "MariaDB SET TRANSACTION: READ UNCOMMITTED reads may see \"a possible earlier version of a row\" "
           "(dirty read), https://mariadb.com/kb/en/set-transaction/#read-uncommitted";
  if (e == Engine::MySql)
    return "MySQL 8.0 reference manual 15.7.2.1: READ UNCOMMITTED permits dirty reads, "
           "https://dev.mysql.com/doc/refman/8.0/en/innodb-transaction-isolation-levels.html";
  return {};
}

// Empty unless some step of a committed transaction waited through the end of a committed transaction and the
// end of one that is left out.
std::string ambiguous_wait(const History& h) {
  std::vector<int> ended_at(h.transactions.size(), -1);
  for (std::size_t t = 0; t < h.transactions.size(); ++t) ended_at[t] = h.transactions[t].end_event;
  for (std::size_t t = 0; t < h.transactions.size(); ++t) {
    if (h.transactions[t].fate != TxnFate::Committed) continue;
    for (std::size_t i = 0; i < h.submitted_at[t].size(); ++i) {
      const int from = h.submitted_at[t][i];
      const int to = h.completed_at(StepRef{static_cast<int>(t), static_cast<int>(i)});
      bool committed_end = false, left_out_end = false;
      for (std::size_t o = 0; o < h.transactions.size(); ++o) {
        if (o == t || ended_at[o] < from || ended_at[o] > to) continue;
        (h.transactions[o].fate == TxnFate::Committed ? committed_end : left_out_end) = true;
      }
      if (committed_end && left_out_end)
        return fmt::format("T{}.{} waited through the end of a committed and of an aborted transaction", t, i);
    }
  }
  return {};
}

}  // namespace

Verdict check_atomicity(Target& target, const History& h, const AtomicityOptions& options) {
  Verdict v = Verdict::pass("atomicity");
  if (h.finding) {
    v.inconclusive = true;
    v.note = "the run did not finish";
    return v;
  }
  const TestCase& c = h.test_case;
  std::vector<int> kept;     // original transaction indexes, in index order
  std::vector<int> renumber(c.transactions.size(), -1);
  std::string left_out;
  for (std::size_t t = 0; t < c.transactions.size(); ++t) {
    if (h.transactions[t].fate == TxnFate::Committed) {
      renumber[t] = static_cast<int>(kept.size());
      kept.push_back(static_cast<int>(t));
    } else {
      left_out += fmt::format("{}T{} ({})", left_out.empty() ? "" : ", ", t, to_string(h.transactions[t].fate));
    }
  }
  if (left_out.empty()) {
    v.note = "every transaction committed: nothing to leave out";
    return v;
  }
  // The replay submits the committed transactions' steps in their submitted order: a statement that waited for a
  // committed transaction waits for it again and sees what it saw (PostgreSQL takes its snapshot when the
  // statement starts, not when it resumes); one that waited only for transactions now left out runs at once, which
  // is equivalent because no committed transaction ended while it waited. If a statement waited through the end of
  // both kinds, neither order reproduces its circumstances: a difference then gives no verdict.
  TestCase replay;
  replay.schema = c.schema;
  for (int t : kept) replay.transactions.push_back(c.transactions[static_cast<std::size_t>(t)]);
  for (int t : c.order)
    if (renumber[static_cast<std::size_t>(t)] >= 0) replay.order.push_back(renumber[static_cast<std::size_t>(t)]);
  const History r = target.run(replay);
  if (r.finding) {
    v.inconclusive = true;
    v.note = "the replay did not finish: " + r.finding->detail;
    return v;
  }

  std::string diff;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const int t = kept[k];
    const Transaction& tx = c.transactions[static_cast<std::size_t>(t)];
    for (std::size_t i = 0; i < tx.step_count(); ++i) {
      const Outcome& before = h.outcomes[static_cast<std::size_t>(t)][i];
      const Outcome& after = r.outcomes[k][i];
      if (compare_outcomes(before, after).empty()) continue;
      diff += fmt::format("  T{}.{} {}\n    with the aborted transactions:    {}\n    without them:                     {}\n",
                          t, i, render(tx.step(i), Dialect::Portable), summary(before), summary(after));
    }
  }
  const std::string state = compare_states(h.final_state, r.final_state, "with the aborted transactions", "without them");
  if (diff.empty() && state.empty()) {
    v.note = "left out " + left_out;
    return v;
  }
  if (auto why = ambiguous_wait(h); !why.empty()) {
    v.inconclusive = true;
    v.note = "the replay differs, but " + why + ", so no replay order is faithful";
    return v;
  }
  Finding f;
  f.kind = "aborted-effect";
  f.explanation = fmt::format(
      "Left out {}; replayed the committed transactions in their submitted order on a fresh database.\n", left_out);
  if (!diff.empty()) f.explanation += "Statements whose outcome changed:\n" + diff;
  if (!state.empty()) f.explanation += "Final state differs:\n  " + state;
  if (!options.ignore_documentation) {
    f.source = documented_dirty_read_source(target.engine(), c.transactions.empty() ? IsolationLevel::Serializable
                                                                                       : c.transactions[0].isolation);
    f.documented = !f.source.empty();
  }
  v.findings.push_back(std::move(f));
  return v;
}

}  // namespace txprop
