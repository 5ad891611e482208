#include "txprop/history.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "txprop/sql.hpp"

namespace txprop {

std::string to_string(TxnFate f) {
  switch (f) {
    case TxnFate::Committed: return "committed";
    case TxnFate::RolledBack: return "rolled back";
    case TxnFate::Aborted: return "aborted";
    case TxnFate::Unfinished: return "unfinished";
  }
  return "?";
}

std::string to_string(RunFinding::Kind k) {
  switch (k) {
    case RunFinding::Kind::Crash: return "crash";
    case RunFinding::Kind::Hang: return "hang";
    case RunFinding::Kind::Divergence: return "divergence";
  }
  return "?";
}

namespace {
// Where a run finding happened: a step, or outside every step (the reset, or the final-state read a divergence is
// found in).
std::string finding_at(const RunFinding& f) {
  if (f.step.txn >= 0) return to_string(f.step);
  return f.kind == RunFinding::Kind::Divergence ? "the final-state read" : "no step (the reset or the final-state read)";
}
}  // namespace

History History::never_ran(const TestCase& c, std::string target, std::string server_version) {
  History h;
  h.test_case = c;
  h.target = std::move(target);
  h.server_version = std::move(server_version);
  h.transactions.resize(c.transactions.size());
  for (const Transaction& t : c.transactions) {
    h.outcomes.emplace_back(t.step_count());
    for (Outcome& o : h.outcomes.back()) o.status = Outcome::Status::Skipped;
    h.was_blocked.emplace_back(t.step_count(), false);
    h.submitted_at.emplace_back(t.step_count(), -1);
  }
  return h;
}

Verdict run_verdict(const History& h, Dialect dialect) {
  Verdict v = Verdict::pass("run");
  if (h.finding) {
    Finding f;
    f.kind = to_string(h.finding->kind);
    f.explanation = fmt::format("{} at {}: {}\n", f.kind, finding_at(*h.finding), h.finding->detail);
    v.findings.push_back(std::move(f));
  }
  for (std::size_t t = 0; t < h.outcomes.size(); ++t)
    for (std::size_t i = 0; i < h.outcomes[t].size(); ++i)
      if (h.outcomes[t][i].failed() && h.outcomes[t][i].error.cls == ErrorClass::InvalidStatement) {
        Finding f;
        f.kind = "invalid-statement";
        f.explanation = fmt::format(
            "the engine rejected T{}.{} as invalid, a generator (or scenario) defect: {}\n  {}\n", t, i,
            render(h.test_case.transactions[t].step(i), dialect), h.outcomes[t][i].error.message);
        v.findings.push_back(std::move(f));
      }
  return v;
}

std::vector<StepRef> History::actual_order() const {
  std::vector<StepRef> out;
  for (const Event& e : events)
    if (e.kind == Event::Kind::Completed) out.push_back(e.step);
  return out;
}

std::vector<int> History::end_order() const {
  std::vector<std::pair<int, int>> ends;
  for (std::size_t i = 0; i < transactions.size(); ++i)
    if (transactions[i].end_event >= 0) ends.emplace_back(transactions[i].end_event, static_cast<int>(i));
  std::sort(ends.begin(), ends.end());
  std::vector<int> out;
  for (const auto& [event, t] : ends) out.push_back(t);
  return out;
}

std::vector<int> History::committed() const {
  std::vector<int> out;
  for (int t : end_order())
    if (transactions[static_cast<std::size_t>(t)].fate == TxnFate::Committed) out.push_back(t);
  return out;
}

std::vector<History::Resumption> History::resumptions_together() const {
  std::vector<Resumption> out;
  std::set<StepRef> waiting;
  for (const Event& e : events) {
    if (e.kind == Event::Kind::Blocked) waiting.insert(e.step);
    if (e.kind != Event::Kind::Completed) continue;
    waiting.erase(e.step);
    const TxnResult& r = transactions[static_cast<std::size_t>(e.step.txn)];
    const bool ends = r.end_event >= 0 && &events[static_cast<std::size_t>(r.end_event)] == &e;
    if (!ends) continue;
    std::set<int> txns;
    for (const StepRef& w : waiting) txns.insert(w.txn);
    if (txns.size() >= 2) out.push_back(Resumption{e.step.txn, {waiting.begin(), waiting.end()}});
  }
  return out;
}

std::string History::concurrent_resumption() const {
  const std::vector<Resumption> all = resumptions_together();
  if (all.empty()) return {};
  std::set<int> txns;
  for (const StepRef& w : all.front().waiting) txns.insert(w.txn);
  return fmt::format("when T{} ended, {} transactions were waiting and resumed together", all.front().releaser,
                     txns.size());
}

bool History::any_blocked() const {
  return std::any_of(events.begin(), events.end(), [](const Event& e) { return e.kind == Event::Kind::Blocked; });
}

int History::completed_at(StepRef ref) const {
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].kind == Event::Kind::Completed && events[i].step == ref) return static_cast<int>(i);
  return -1;
}

std::string describe(const History& h) { return describe(h, {}); }

namespace {
std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
std::string trim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}
}  // namespace

std::vector<std::string> transaction_labels(const std::vector<std::string>& names, std::size_t count) {
  std::vector<std::string> out(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), count)));
  if (names.empty())
    for (std::size_t t = 0; t < count; ++t) out.push_back(fmt::format("T{}", t));
  int k = 1;
  while (out.size() < count) {
    const std::string label = k == 1 ? std::string("observer") : fmt::format("observer{}", k);
    ++k;
    if (std::find(names.begin(), names.end(), label) == names.end()) out.push_back(label);
  }
  return out;
}

std::string relabel(const std::string& text, const std::vector<std::string>& names, std::size_t count) {
  if (names.empty()) return text;
  const std::vector<std::string> labels = transaction_labels(names, count);
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const bool boundary = i == 0 || !word(text[i - 1]);
    std::size_t j = i + 1;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    const bool end = j == text.size() || !word(text[j]);
    if (text[i] == 'T' && boundary && j > i + 1 && end && j - i < 6) {
      const std::size_t n = std::stoul(text.substr(i + 1, j - i - 1));
      out += n < labels.size() ? labels[n] : text.substr(i, j - i);
      i = j;
      continue;
    }
    out += text[i++];
  }
  return out;
}

std::string describe(const History& h, const std::vector<std::string>& given) {
  const std::vector<std::string> names = given.empty() ? given : transaction_labels(given, h.transactions.size());
  std::size_t width = 2;
  for (const auto& n : names) width = std::max(width, n.size());
  auto name = [&](int t) {
    return fmt::format("{:<{}}", t >= 0 && static_cast<std::size_t>(t) < names.size() ? names[static_cast<std::size_t>(t)]
                                                                                       : fmt::format("T{}", t), width);
  };
  std::string out = fmt::format("-- actual order on {} ({}):\n", h.target, h.server_version);
  int n = 0;
  for (const Event& e : h.events) {
    const Transaction& tx = h.test_case.transactions[static_cast<std::size_t>(e.step.txn)];
    const Statement s = tx.step(static_cast<std::size_t>(e.step.index));
    if (tx.autocommit && s.is_transaction_control()) continue;  // an autocommit statement's BEGIN and end: not sent
    const std::string sql = render(s, Dialect::Portable);
    switch (e.kind) {
      case Event::Kind::Blocked:
        out += fmt::format("{:>4}  {}  {};  -- blocked\n", ++n, name(e.step.txn), sql);
        break;
      case Event::Kind::Skipped:
        out += fmt::format("{:>4}  {}  {};  -- not sent: transaction already ended\n", ++n, name(e.step.txn), sql);
        break;
      case Event::Kind::Completed: {
        const bool resumed = h.was_blocked[static_cast<std::size_t>(e.step.txn)][static_cast<std::size_t>(e.step.index)];
        out += fmt::format("{:>4}  {}  {};  -- {}{}\n", ++n, name(e.step.txn), sql, resumed ? "resumed, " : "",
                           summary(h.outcome(e.step)));
        break;
      }
    }
  }
  for (std::size_t i = 0; i < h.transactions.size(); ++i) {
    const TxnResult& r = h.transactions[i];
    out += fmt::format("-- {}: {}", trim(name(static_cast<int>(i))), to_string(r.fate));
    if (r.fate == TxnFate::Aborted)
      out += fmt::format(" by {} at step {}.{} ({})", to_string(r.abort_reason.cls), trim(name(r.failed_step->txn)),
                         r.failed_step->index,
                         r.abort_reason.message);
    out += "\n";
  }
  if (h.finding)
    out += fmt::format("-- {} at {}: {}\n", upper(to_string(h.finding->kind)),
                       finding_at(*h.finding), h.finding->detail);
  for (const auto& [table, rows] : h.final_state) {
    out += fmt::format("-- final {}:", table);
    if (rows.empty()) out += " (empty)";
    for (const Row& r : rows) out += " " + to_string(r);
    out += "\n";
  }
  return out;
}

namespace {

// Whether statement `s`, which ended with `o`, may have changed the tables it writes.
bool may_have_changed(const Statement& s, const Outcome& o) {
  if (!s.is_write() || o.status == Outcome::Status::Skipped) return false;
  const bool plain = (s.kind == StatementKind::Update || s.kind == StatementKind::Delete) && !s.is_upsert();
  return !(plain && o.ok() && o.affected == 0);
}

}  // namespace

std::vector<std::string> changed_tables(const History& h) {
  const TestCase& c = h.test_case;
  std::set<std::string> changed;
  for (std::size_t t = 0; t < c.transactions.size() && t < h.outcomes.size(); ++t) {
    const auto& statements = c.transactions[t].statements;
    for (std::size_t i = 0; i < statements.size() && i + 1 < h.outcomes[t].size(); ++i)
      if (may_have_changed(statements[i], h.outcomes[t][i + 1]))
        for (const std::string& w : statements[i].written_tables()) changed.insert(w);
  }
  // Referencing tables and cascade logs, until nothing more is added (a chain of keys, a log of a referencing table).
  for (bool grew = true; grew;) {
    grew = false;
    for (const Table& table : c.schema.tables) {
      const bool references_changed = std::any_of(table.foreign_keys.begin(), table.foreign_keys.end(),
                                                  [&](const ForeignKey& k) { return changed.count(k.table) > 0; });
      if (references_changed) grew |= changed.insert(table.name).second;
      if (changed.count(table.name) && table.cascade_log) grew |= changed.insert(table.cascade_log->log_table).second;
    }
  }
  std::vector<std::string> out;
  for (const Table& table : c.schema.tables)
    if (changed.count(table.name)) out.push_back(table.name);
  return out;
}

}  // namespace txprop
