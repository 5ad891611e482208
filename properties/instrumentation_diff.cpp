#include "txprop/internal/instrumentation_diff.hpp"

#include <algorithm>
#include <map>
#include <set>

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

// Every step (in plain step order) whose blocking or outcome differs.
void step_differences(const History& plain, const History& prepared, const StepMap& map, const HiddenColumns& hidden,
                      std::vector<Difference>& out) {
  for (std::size_t t = 0; t < map.size(); ++t)
    for (std::size_t k = 0; k < map[t].size(); ++k) {
      const StepRef step{static_cast<int>(t), static_cast<int>(k)};
      const bool a = plain.was_blocked[t][k], b = waited(prepared, t, map[t], k);
      if (a != b)
        out.push_back({Difference::Kind::Blocking, step, {},
                       fmt::format("blocking: {} {} plainly, {} prepared", step_name(t, k),
                                   a ? "waited" : "did not wait", b ? "waited" : "did not wait")});
      const Outcome& p = plain.outcomes[t][k];
      if (const std::string d = compare_outcomes(p, as_plain(outcome_of(prepared, t, map[t], k), p, hidden));
          !d.empty())
        out.push_back({Difference::Kind::Outcome, step, {},
                       fmt::format("outcome of {}{}: {} (plain vs prepared)", step_name(t, k),
                                   a && b ? " (it waited in both runs)" : "", d)});
    }
}

// The tables of the final state that differ, each with its rows only in one run.
void state_differences(const History& plain, const History& prepared, const HiddenColumns& hidden,
                       std::vector<Difference>& out) {
  const DatabaseState visible = plain_state(prepared.final_state, plain.test_case, prepared.test_case, hidden);
  for (const auto& [name, rows] : plain.final_state) {
    const auto it = visible.find(name);
    const DatabaseState other{{name, it == visible.end() ? std::vector<Row>{} : it->second}};
    if (std::string d = compare_states({{name, rows}}, other, "plain", "prepared"); !d.empty())
      out.push_back({Difference::Kind::FinalState, {}, name, std::move(d)});
  }
}

// The plain step a step of the prepared case stands for: an added step counts as the plain statement after it.
std::size_t plain_step(const std::vector<std::size_t>& steps, std::size_t m) {
  return static_cast<std::size_t>(std::lower_bound(steps.begin(), steps.end(), m) - steps.begin());
}

// [transaction] -> the first plain step of it that was waiting when a transaction's end released it together with
// another transaction's (History::resumptions_together, in either run); absent when none was.
std::map<std::size_t, std::size_t> released_together(const History& plain, const History& prepared,
                                                     const StepMap& map) {
  std::map<std::size_t, std::size_t> out;
  const auto note = [&](std::size_t t, std::size_t k) {
    if (t >= map.size()) return;  // an appended transaction (the observer) has no plain counterpart
    auto [it, added] = out.emplace(t, k);
    if (!added) it->second = std::min(it->second, k);
  };
  for (const History::Resumption& r : plain.resumptions_together())
    for (const StepRef& w : r.waiting) note(static_cast<std::size_t>(w.txn), static_cast<std::size_t>(w.index));
  for (const History::Resumption& r : prepared.resumptions_together())
    for (const StepRef& w : r.waiting) {
      const auto t = static_cast<std::size_t>(w.txn);
      if (t < map.size()) note(t, plain_step(map[t], static_cast<std::size_t>(w.index)));
    }
  return out;
}

// Whether a statement of a transaction other than `t` was waiting when the step at event count `submitted` was sent
// and then failed with a deadlock.
bool sent_while_a_victim_waited(const History& h, std::size_t t, int submitted) {
  for (std::size_t i = 0; i < h.events.size() && static_cast<int>(i) < submitted; ++i) {
    const Event& e = h.events[i];
    if (e.kind != Event::Kind::Blocked || static_cast<std::size_t>(e.step.txn) == t) continue;
    const int done = h.completed_at(e.step);
    if (done >= submitted && h.outcome(e.step).failed() && h.outcome(e.step).error.cls == ErrorClass::Deadlock)
      return true;
  }
  return false;
}

// Whether every difference lies in `members`' steps from the step each is mapped to on, their fates, or the final
// state of the tables they write (in the plain case).
bool confined_to(const std::vector<Difference>& all, const std::map<std::size_t, std::size_t>& members,
                 const TestCase& plain) {
  std::set<std::string> written;
  for (const auto& [t, k] : members)
    for (const Statement& s : plain.transactions[t].statements)
      for (const std::string& w : s.written_tables()) written.insert(w);
  const auto member = [&](const StepRef& step, bool from_step) {
    const auto it = members.find(static_cast<std::size_t>(step.txn));
    return it != members.end() && (!from_step || static_cast<std::size_t>(step.index) >= it->second);
  };
  for (const Difference& d : all) {
    using K = Difference::Kind;
    const bool inside = (d.kind == K::Blocking || d.kind == K::Outcome) ? member(d.step, true)
                        : d.kind == K::Fate                              ? member(d.step, false)
                        : d.kind == K::FinalState                        ? written.count(d.table) != 0
                                                                         : false;
    if (!inside) return false;
  }
  return true;
}

std::string names_of(const std::map<std::size_t, std::size_t>& members) {
  std::string names;
  for (const auto& [t, k] : members) names += fmt::format("{}T{}.{}", names.empty() ? "" : ", ", t, k);
  return names;
}

// Adds to `members` ([transaction] -> its first plain step a deadlock of run `h` may change) the transactions of each
// deadlock: the victim at the step that failed with a deadlock error, each transaction whose step was waiting when
// that error arrived, at that step, and the transaction of the step sent last before it (the request whose wait
// closed the cycle: InnoDB and the runner both look for a cycle when a request starts to wait); and every step sent
// after the first such error (the victim's abort released its locks, and which locks the survivors hold from then on
// depends on which one was ended). False when `h` had no deadlock.
bool add_deadlocked(const History& h, const StepMap& map, std::map<std::size_t, std::size_t>& members) {
  const auto note = [&](const StepRef& s) {
    const auto t = static_cast<std::size_t>(s.txn);
    if (t >= map.size()) return;  // an appended transaction (the observer) has no plain counterpart
    const std::size_t k = plain_step(map[t], static_cast<std::size_t>(s.index));
    auto [it, added] = members.emplace(t, k);
    if (!added) it->second = std::min(it->second, k);
  };
  bool any = false, first = true;
  for (std::size_t i = 0; i < h.events.size(); ++i) {
    const Event& v = h.events[i];
    if (v.kind != Event::Kind::Completed || !h.outcome(v.step).failed() ||
        h.outcome(v.step).error.cls != ErrorClass::Deadlock)
      continue;
    any = true;
    note(v.step);
    std::optional<StepRef> closer;
    int closer_submitted = -1;
    for (std::size_t t = 0; t < h.submitted_at.size(); ++t)
      for (std::size_t m = 0; m < h.submitted_at[t].size(); ++m) {
        const StepRef s{static_cast<int>(t), static_cast<int>(m)};
        const int sent = h.submitted_at[t][m], done = h.completed_at(s);
        if (sent <= static_cast<int>(i) && (done < 0 || done > static_cast<int>(i)) && h.was_blocked[t][m]) note(s);
        if (sent <= static_cast<int>(i) && sent > closer_submitted) closer = s, closer_submitted = sent;
      }
    if (closer) note(*closer);
    if (first) {
      first = false;
      for (std::size_t t = 0; t < h.submitted_at.size(); ++t)
        for (std::size_t m = 0; m < h.submitted_at[t].size(); ++m)
          if (h.submitted_at[t][m] > static_cast<int>(i)) note(StepRef{static_cast<int>(t), static_cast<int>(m)});
    }
  }
  return any;
}

}  // namespace

StepMap identity_map(const TestCase& c) {
  StepMap out;
  for (const Transaction& t : c.transactions) {
    out.emplace_back();
    for (std::size_t k = 0; k < t.step_count(); ++k) out.back().push_back(k);
  }
  return out;
}

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

std::vector<Difference> differences(const History& plain, const History& prepared) {
  const std::optional<StepMap> map = map_steps(plain.test_case, prepared.test_case);
  if (!map) return {};
  const HiddenColumns hidden = added_columns(plain.test_case, prepared.test_case);
  std::vector<Difference> out;
  if (plain.finding.has_value() != prepared.finding.has_value())
    out.push_back({Difference::Kind::Run, {}, {},
                   fmt::format("run: {} plainly, {} prepared", plain.finding ? plain.finding->detail : "finished",
                               prepared.finding ? prepared.finding->detail : "finished")});
  step_differences(plain, prepared, *map, hidden, out);
  for (std::size_t t = 0; t < map->size(); ++t)
    if (plain.transactions[t].fate != prepared.transactions[t].fate)
      out.push_back({Difference::Kind::Fate, StepRef{static_cast<int>(t), 0}, {},
                     fmt::format("fate of T{}: {} plainly, {} prepared", t, to_string(plain.transactions[t].fate),
                                 to_string(prepared.transactions[t].fate))});
  if (!plain.finding && !prepared.finding) state_differences(plain, prepared, hidden, out);
  return out;
}

std::string compare_runs(const History& plain, const History& prepared) {
  if (!map_steps(plain.test_case, prepared.test_case))
    return "the prepared case's steps cannot be mapped to the plain case's";
  // The first difference of each kind, and every table of the final state that differs.
  std::vector<std::string> lines;
  std::string state;
  std::set<Difference::Kind> shown;
  for (const Difference& d : differences(plain, prepared)) {
    if (d.kind == Difference::Kind::FinalState) state += d.text;
    else if (shown.insert(d.kind).second) lines.push_back(d.text);
  }
  if (!state.empty()) lines.push_back("final state: " + state);
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

std::string waiter_order(const History& plain, const History& prepared) {
  const std::optional<StepMap> map = map_steps(plain.test_case, prepared.test_case);
  if (!map) return {};
  const std::map<std::size_t, std::size_t> released = released_together(plain, prepared, *map);
  if (released.empty() || !confined_to(differences(plain, prepared), released, plain.test_case)) return {};
  return fmt::format("waiters released together ({}): every difference is in their steps from the wait on, their "
                     "fates or the tables they write",
                     names_of(released));
}

std::string deadlock_victim(const History& plain, const History& prepared) {
  const std::optional<StepMap> map = map_steps(plain.test_case, prepared.test_case);
  if (!map) return {};
  std::map<std::size_t, std::size_t> members;
  if (!add_deadlocked(plain, identity_map(plain.test_case), members) || !add_deadlocked(prepared, *map, members) ||
      !confined_to(differences(plain, prepared), members, plain.test_case))
    return {};
  return fmt::format("a deadlock in both runs: every difference is in what the victim's abort may change (the steps "
                     "from {} on), those transactions' fates or the tables they write",
                     names_of(members));
}

std::string deadlock_closing_wait(const History& plain, const History& prepared) {
  const std::optional<StepMap> map = map_steps(plain.test_case, prepared.test_case);
  if (!map) return {};
  const std::vector<Difference> all = differences(plain, prepared);
  std::string steps;
  for (const Difference& d : all) {
    if (d.kind != Difference::Kind::Blocking) return {};
    const auto t = static_cast<std::size_t>(d.step.txn), k = static_cast<std::size_t>(d.step.index);
    // In the prepared run the wait may be an added step's around the statement (waited(): the steps after the
    // previous statement up to this one): one of them was sent while the victim waited.
    bool prepared_closed = false;
    for (std::size_t m = k == 0 ? 0 : (*map)[t][k - 1] + 1; m <= (*map)[t][k] && !prepared_closed; ++m)
      prepared_closed = sent_while_a_victim_waited(prepared, t, prepared.submitted_at[t][m]);
    if (!prepared_closed || !sent_while_a_victim_waited(plain, t, plain.submitted_at[t][k])) return {};
    steps += fmt::format("{}{}", steps.empty() ? "" : ", ", step_name(t, k));
  }
  if (steps.empty()) return {};
  return fmt::format("{} closed a deadlock in both runs; only whether it was seen waiting differs", steps);
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
