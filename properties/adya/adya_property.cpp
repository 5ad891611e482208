// From an instrumented run to the Adya checker: each returned row's (txp_rid, txp_wl) becomes a read observation,
// DELETE ... RETURNING rows become before-delete reads, INSERT and UPDATE ... RETURNING rows become writes; then
// the expectation table decides which findings fail.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "adya.hpp"
#include "txprop/adya.hpp"
#include "instrumentation.hpp"
#include "txprop/sql.hpp"

namespace txprop {

namespace {

adya::TxnId txn_id(std::size_t index) { return static_cast<adya::TxnId>(index + 1); }

struct Columns {
  std::optional<std::size_t> rid, wl;
};

Columns find_columns(const Outcome& o) {
  Columns c;
  for (std::size_t i = 0; i < o.columns.size(); ++i) {
    if (o.columns[i] == adya::kRowIdColumn) c.rid = i;
    if (o.columns[i] == adya::kWriterListColumn) c.wl = i;
  }
  return c;
}

struct Extracted {
  adya::ObservedHistory observed;
  std::vector<std::string> malformed;  // rows whose instrumentation columns could not be read
};

// Where UPDATE returns nothing (MariaDB), a write shows up only in later writer lists. It is attributed to the
// writer's UPDATE of the row's table when the writer ran exactly one that changed rows, so that explanations can
// quote it; otherwise it stays unrecorded (the checker is told writes are incomplete).
struct UpdateAttribution {
  std::map<std::pair<adya::TxnId, std::string>, std::vector<adya::StmtIndex>> updates;  // (txn, table) -> UPDATEs
  std::map<adya::RowId, std::string> row_table;                                        // row -> table it was read in
  std::set<std::pair<adya::TxnId, adya::RowId>> recorded;
  std::vector<std::pair<adya::RowId, std::vector<std::uint32_t>>> lists;             // every writer list read

  void apply(adya::ObservedHistory& o) const {
    std::set<std::pair<adya::TxnId, adya::RowId>> done = recorded;
    for (const auto& [row, list] : lists)
      for (adya::TxnId writer : list) {
        if (writer == adya::kInitialTxn || !done.insert({writer, row}).second) continue;
        const auto table = row_table.find(row);
        if (table == row_table.end()) continue;
        const auto it = updates.find({writer, table->second});
        if (it != updates.end() && it->second.size() == 1) o.add_write(it->second.front(), row, adya::WriteKind::Update);
      }
  }
};

Extracted extract(const History& h) {
  Extracted x;
  adya::ObservedHistory& o = x.observed;
  UpdateAttribution attribution;
  const TestCase& c = h.test_case;
  o.set_label(adya::kInitialTxn, "init");  // txprop numbers transactions from T0
  for (const Table& t : c.schema.tables) {
    const auto rid = t.column_index(adya::kRowIdColumn);
    for (const Row& r : t.rows) o.add_initial_row(static_cast<adya::RowId>(r[*rid].as_int()));
  }
  for (std::size_t t = 0; t < c.transactions.size(); ++t) {
    const Transaction& tx = c.transactions[t];
    const std::size_t first = tx.statements.empty() ? 0 : 1;
    const int start = h.submitted_at[t][first];
    o.add_transaction(txn_id(t), fmt::format("T{}", t),
                      start < 0 ? adya::kUnknownPosition : static_cast<adya::Position>(start));
    for (std::size_t i = 1; i <= tx.statements.size(); ++i) {
      const Outcome& out = h.outcomes[t][i];
      const Statement& s = tx.statements[i - 1];
      const adya::StmtIndex stmt =
          o.add_statement(txn_id(t), fmt::format("T{}.{} {}", t, i, render(adya::strip_instrumentation_of(s), Dialect::Portable)));
      if (!out.ok()) continue;  // a failed statement changed nothing and returned nothing
      const Columns cols = find_columns(out);
      auto each_row = [&](auto&& f) {
        if (!cols.rid || !cols.wl) return;
        for (const Row& r : out.rows) {
          const Value& rid = r[*cols.rid];
          const Value& wl = r[*cols.wl];
          auto list = wl.type() == ValueType::Text ? adya::parse_writer_list(wl.as_text()) : std::nullopt;
          // SQLite 3.40.1 returns the INTEGER txp_rid as REAL from UPDATE/DELETE ... RETURNING when the table has
          // a REAL column before it (an engine bug of its own, pinned in tests/integration/known_engine_bugs_test);
          // an integral real is the row id.
          const bool integral = rid.type() == ValueType::Integer ||
                                (rid.type() == ValueType::Real && rid.as_real() == static_cast<double>(
                                                                                       static_cast<std::int64_t>(rid.as_real())));
          if (!integral || !list) {
            x.malformed.push_back(fmt::format("T{}.{} returned row id {} with writer list {}", t, i, rid.to_string(),
                                              wl.to_string()));
            continue;
          }
          f(static_cast<adya::RowId>(rid.type() == ValueType::Integer ? rid.as_int()
                                                                      : static_cast<std::int64_t>(rid.as_real())),
            *list);
        }
      };
      switch (s.kind) {
        case StatementKind::Select:
          each_row([&](adya::RowId row, const std::vector<std::uint32_t>& list) {
            o.add_read(stmt, row, list);
            attribution.row_table.emplace(row, s.table);
            attribution.lists.emplace_back(row, list);
          });
          break;
        case StatementKind::Delete:
          each_row([&](adya::RowId row, const std::vector<std::uint32_t>& list) {
            o.add_delete_read(stmt, row, list);
            o.add_write(stmt, row, adya::WriteKind::Delete);
            attribution.row_table.emplace(row, s.table);
            attribution.lists.emplace_back(row, list);
          });
          break;
        case StatementKind::Update:
          if (out.affected > 0) attribution.updates[{txn_id(t), s.table}].push_back(stmt);
          each_row([&](adya::RowId row, const std::vector<std::uint32_t>&) {
            o.add_write(stmt, row, adya::WriteKind::Update);
            attribution.recorded.insert({txn_id(t), row});
          });
          break;
        case StatementKind::Insert: {
          const auto at = std::find(s.columns.begin(), s.columns.end(), adya::kRowIdColumn) - s.columns.begin();
          for (const auto& values : s.values)
            if (static_cast<std::size_t>(at) < values.size() && values[static_cast<std::size_t>(at)].kind == Expr::Kind::Literal)
              o.add_write(stmt, static_cast<adya::RowId>(values[static_cast<std::size_t>(at)].literal.as_int()),
                          adya::WriteKind::Insert);
          break;
        }
        default: break;
      }
    }
    const TxnResult& r = h.transactions[t];
    const adya::Fate fate = r.fate == TxnFate::Committed   ? adya::Fate::Committed
                            : r.fate == TxnFate::Unfinished ? adya::Fate::Unknown
                                                            : adya::Fate::Aborted;
    o.finish_transaction(txn_id(t), fate,
                         r.end_event < 0 ? adya::kUnknownPosition : static_cast<adya::Position>(r.end_event));
  }
  attribution.apply(o);
  return x;
}

}  // namespace

TestCase instrument_for_adya(const TestCase& c, const EngineProfile& engine) {
  return adya::instrument(c, adya::instrumentation_options(engine.capabilities()));
}

Verdict check_adya(Target& target, const History& h, AdyaMode mode) {
  Verdict v = Verdict::pass("adya");
  if (!adya::is_instrumented(h.test_case)) {
    v.inconclusive = true;
    v.note = "the case was not instrumented (run instrument_for_adya(c, engine))";
    return v;
  }
  // Every transaction is judged at its own level (Adya's mixed-level serialization graph): the checker looks for
  // everything some transaction's claimed level or its engine's promise proscribes, and each finding counts against
  // the levels of the transactions that decide it (Finding::deciding).
  const std::size_t n = h.test_case.transactions.size();
  std::vector<AdyaExpectation> expectations;
  std::set<std::string> wanted;
  std::set<std::string> level_names;
  for (const Transaction& t : h.test_case.transactions) {
    expectations.push_back(adya_expectation(target.config(), t.isolation));
    wanted.insert(expectations.back().claimed.begin(), expectations.back().claimed.end());
    wanted.insert(expectations.back().promised.begin(), expectations.back().promised.end());
    level_names.insert(fmt::format("{} claimed ({}), {} promised", expectations.back().claimed_level,
                                   sql_name(t.isolation), expectations.back().promised_level));
  }
  if (n == 0) return v;
  Extracted x = extract(h);
  adya::CheckOptions options;
  // Every write is known only if every UPDATE returned the rows it wrote (not on MariaDB/MySQL).
  options.writes_complete = true;
  for (const Transaction& t : h.test_case.transactions)
    for (const Statement& s : t.statements)
      if ((s.kind == StatementKind::Update || s.kind == StatementKind::Delete) && s.returning.empty())
        options.writes_complete = false;
  Verdict found = adya::check(x.observed, wanted, options);
  for (const std::string& m : x.malformed)
    found.findings.push_back(Finding{"impossible-history", m + ": not a row id and writer list txprop wrote\n", false, {}, {}});

  // Whether the levels of `f`'s transactions, read through `set_of`, proscribe it.
  auto counts = [&](const Finding& f, auto set_of) {
    auto proscribes = [&](int t) {
      return t >= 0 && static_cast<std::size_t>(t) < n && adya::is_proscribed(set_of(expectations[static_cast<std::size_t>(t)]), f.kind);
    };
    if (f.transactions.empty() && f.deciding.empty()) return adya::is_proscribed(set_of(expectations.front()), f.kind);
    return std::all_of(f.deciding.begin(), f.deciding.end(), proscribes) &&
           std::any_of(f.transactions.begin(), f.transactions.end(), proscribes);
  };
  for (Finding& f : found.findings) {
    if (f.kind == "impossible-history" || counts(f, [](const AdyaExpectation& e) -> const std::set<std::string>& { return e.promised; }))
      continue;  // fails
    // The first deciding (else involved) transaction whose engine allows it gives the documentation.
    const AdyaExpectation* allowing = &expectations.front();
    std::vector<int> candidates = f.deciding;
    candidates.insert(candidates.end(), f.transactions.begin(), f.transactions.end());
    for (int t : candidates)
      if (t >= 0 && static_cast<std::size_t>(t) < n && !adya::is_proscribed(expectations[static_cast<std::size_t>(t)].promised, f.kind)) {
        allowing = &expectations[static_cast<std::size_t>(t)];
        break;
      }
    f.source = allowing->source;
    const bool claimed = counts(f, [](const AdyaExpectation& e) -> const std::set<std::string>& { return e.claimed; });
    if (mode == AdyaMode::Documented || !claimed) {
      f.documented = true;
    } else {
      f.deviation = true;  // proscribed by the claimed level only: shrink it, report it, do not fail the test
      if (!f.explanation.empty() && f.explanation.back() != '\n') f.explanation += '\n';
      f.explanation += fmt::format("Proscribed by {} (the claimed level), allowed by {} as documented.\n",
                                   allowing->claimed_level, allowing->promised_level);
    }
  }
  v.findings = std::move(found.findings);
  v.note = fmt::format("{}", fmt::join(level_names, "; "));
  if (!v.findings.empty()) v.attachments.emplace_back("history.edn", adya::to_elle_edn(x.observed));
  return v;
}

}  // namespace txprop
