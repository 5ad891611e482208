#include "txprop/internal/instrumentation_diff.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sdg/instrumentation.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/comparison.hpp"
#include "txprop/hidden_columns.hpp"

namespace txprop::differential {

namespace {

// Whether statement `i` of prepared transaction `t` is one the preparation added: Adya's (and Troc's) version-set
// reads and join reads before joined writes, TxCheck's instrumentation reads (sdg::layout gives their roles).
std::vector<bool> added_statements(const TestCase& prepared, std::size_t t, const sdg::Layout* layout) {
  const Transaction& tx = prepared.transactions[t];
  std::vector<bool> out(tx.statements.size(), false);
  for (std::size_t i = 0; i < tx.statements.size(); ++i) {
    const Statement& s = tx.statements[i];
    if (layout != nullptr) out[i] = (*layout)[t][i + 1].role != sdg::Role::Statement;
    else out[i] = adya::is_version_set_read(s) || adya::is_join_read_before_write(s);
  }
  return out;
}

// The columns the prepared case's tables have and the plain case's do not (txp_rid, txp_wl, txp_pk, txp_vk), as a
// hidden-column scheme (txprop/hidden_columns.hpp) that strips them from outcomes and rows: whichever oracle prepared.
HiddenColumns added_columns(const TestCase& plain, const TestCase& prepared) {
  std::vector<Column> out;
  for (const Table& t : prepared.schema.tables) {
    const Table* p = plain.schema.find_table(t.name);
    for (const Column& c : t.columns)
      if ((p == nullptr || p->find_column(c.name) == nullptr) &&
          std::none_of(out.begin(), out.end(), [&](const Column& o) { return o.name == c.name; }))
        out.push_back(c);
  }
  return HiddenColumns(std::move(out));
}

// The prepared outcome as the plain statement would show it: the added columns dropped from its rows, and no rows at
// all where the plain statement returns none (a RETURNING list the preparation added).
Outcome as_plain(Outcome o, const Outcome& plain, const HiddenColumns& hidden) {
  if (o.status != Outcome::Status::Ok) return o;
  if (plain.ok() && plain.columns.empty()) {
    if (!o.columns.empty()) o.affected = static_cast<std::int64_t>(o.rows.size());  // what RETURNING returned it wrote
    o.columns.clear();
    o.rows.clear();
    return o;
  }
  return hidden.visible(std::move(o));
}

// The prepared final state as the plain case shows it: the added columns dropped, and the tables the preparation added
// (Adya's log of a foreign key's writes, adya_instrumentation.hpp) left out.
DatabaseState plain_state(const DatabaseState& state, const TestCase& plain, const TestCase& prepared,
                          const HiddenColumns& hidden) {
  DatabaseState out;
  for (const auto& [name, rows] : state) {
    if (plain.schema.find_table(name) == nullptr) continue;
    const Table* t = prepared.schema.find_table(name);
    std::vector<Row> visible;
    for (const Row& r : rows) visible.push_back(t ? hidden.visible(*t, r) : r);
    out[name] = sorted_rows(std::move(visible));
  }
  return out;
}

std::string step_name(std::size_t t, std::size_t k) { return fmt::format("T{}.{}", t, k); }

// Whether prepared step `m` of transaction `t` waited, or one of the added steps right before it did (a lock the
// statement would have waited for taken first by a read the preparation put before it: the wait is the statement's).
bool waited(const History& prepared, std::size_t t, const std::vector<std::size_t>& steps, std::size_t k) {
  const std::size_t from = k == 0 ? 0 : steps[k - 1] + 1;
  for (std::size_t m = from; m <= steps[k]; ++m)
    if (prepared.was_blocked[t][m]) return true;
  return false;
}

// The prepared outcome of plain step `k`: its own, or, where it was not sent because an added step right before it
// failed and ended the transaction, that step's error (the statement's group failed there).
const Outcome& outcome_of(const History& prepared, std::size_t t, const std::vector<std::size_t>& steps, std::size_t k) {
  const Outcome& own = prepared.outcomes[t][steps[k]];
  if (own.status != Outcome::Status::Skipped || k == 0) return own;
  for (std::size_t m = steps[k - 1] + 1; m < steps[k]; ++m)
    if (prepared.outcomes[t][m].failed()) return prepared.outcomes[t][m];
  return own;
}

// The first step (in plain step order) whose blocking or outcome differs.
std::string compare_steps(const History& plain, const History& prepared, const StepMap& map,
                          const HiddenColumns& hidden) {
  std::string blocking, outcome;
  for (std::size_t t = 0; t < map.size(); ++t)
    for (std::size_t k = 0; k < map[t].size(); ++k) {
      const bool a = plain.was_blocked[t][k], b = waited(prepared, t, map[t], k);
      if (a != b && blocking.empty())
        blocking = fmt::format("blocking: {} {} plainly, {} prepared", step_name(t, k), a ? "waited" : "did not wait",
                               b ? "waited" : "did not wait");
      const Outcome& p = plain.outcomes[t][k];
      const std::string d = compare_outcomes(p, as_plain(outcome_of(prepared, t, map[t], k), p, hidden));
      if (!d.empty() && outcome.empty())
        outcome = fmt::format("outcome of {}{}: {} (plain vs prepared)", step_name(t, k),
                              a && b ? " (it waited in both runs)" : "", d);
    }
  std::string out = blocking;
  if (!outcome.empty()) out += (out.empty() ? "" : "\n") + outcome;
  return out;
}

}  // namespace

std::optional<StepMap> map_steps(const TestCase& plain, const TestCase& prepared) {
  if (prepared.transactions.size() < plain.transactions.size()) return std::nullopt;
  std::optional<sdg::Layout> layout;
  if (sdg::is_instrumented(prepared)) layout = sdg::layout(prepared);
  StepMap out;
  for (std::size_t t = 0; t < plain.transactions.size(); ++t) {
    const std::vector<bool> added = added_statements(prepared, t, layout ? &*layout : nullptr);
    std::vector<std::size_t> steps = {0};  // BEGIN
    for (std::size_t i = 0; i < added.size(); ++i)
      if (!added[i]) steps.push_back(i + 1);
    steps.push_back(prepared.transactions[t].statements.size() + 1);  // the end
    if (steps.size() != plain.transactions[t].step_count()) return std::nullopt;
    out.push_back(std::move(steps));
  }
  return out;
}

std::string compare_runs(const History& plain, const History& prepared) {
  const std::optional<StepMap> map = map_steps(plain.test_case, prepared.test_case);
  if (!map) return "the prepared case's steps cannot be mapped to the plain case's";
  const HiddenColumns hidden = added_columns(plain.test_case, prepared.test_case);
  std::vector<std::string> lines;
  if (plain.finding.has_value() != prepared.finding.has_value())
    lines.push_back(fmt::format("run: {} plainly, {} prepared", plain.finding ? plain.finding->detail : "finished",
                                prepared.finding ? prepared.finding->detail : "finished"));
  if (std::string steps = compare_steps(plain, prepared, *map, hidden); !steps.empty()) lines.push_back(steps);
  for (std::size_t t = 0; t < map->size(); ++t)
    if (plain.transactions[t].fate != prepared.transactions[t].fate) {
      lines.push_back(fmt::format("fate of T{}: {} plainly, {} prepared", t, to_string(plain.transactions[t].fate),
                                  to_string(prepared.transactions[t].fate)));
      break;
    }
  if (!plain.finding && !prepared.finding)
    if (std::string d = compare_states(plain.final_state,
                                       plain_state(prepared.final_state, plain.test_case, prepared.test_case, hidden),
                                       "plain", "prepared");
        !d.empty())
      lines.push_back("final state: " + d);
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

Result run(Target& target, const Oracle& oracle, const TestCase& c) {
  Result r;
  r.refused = oracle.cannot_judge(c, target.engine());
  if (!r.refused.empty()) return r;
  const TestCase prepared = oracle.prepare(c, target.engine());
  if (prepared == c) {
    r.prepared_same = true;
    return r;
  }
  r.plain = target.run(c);
  r.prepared = target.run(prepared);
  r.difference = compare_runs(r.plain, r.prepared);
  // Timing can make a pair differ twice in a row (a wait the probe sees in one run, InnoDB's choice among waiters):
  // a difference counts when each of two more pairs shows one too, and the plain case ran the same way each time (a
  // case whose plain runs differ among themselves shows the engine's own choice, not the preparation's).
  r.reproduced = !r.difference.empty();
  for (int again = 0; again < 2 && r.reproduced; ++again) {
    const History plain = target.run(c);
    r.reproduced = compare_runs(r.plain, plain).empty() && !compare_runs(plain, target.run(prepared)).empty();
  }
  return r;
}

}  // namespace txprop::differential
