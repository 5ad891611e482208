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
  TestCase replay;
  replay.schema = c.schema;
  for (int t : kept) replay.transactions.push_back(c.transactions[static_cast<std::size_t>(t)]);
  for (const StepRef& ref : h.actual_order())
    if (renumber[static_cast<std::size_t>(ref.txn)] >= 0) replay.order.push_back(renumber[static_cast<std::size_t>(ref.txn)]);
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
  Finding f;
  f.kind = "aborted-effect";
  f.explanation = fmt::format(
      "Left out {}; replayed the committed transactions in their actual order on a fresh database.\n", left_out);
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
