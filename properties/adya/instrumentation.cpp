#include "instrumentation.hpp"

#include <algorithm>

namespace txprop::adya {

namespace {

bool is_hidden(const std::string& column) { return column == kRowIdColumn || column == kWriterListColumn; }

// Row ids are unique across all tables and the whole case: initial rows count from 1, each inserted row gets
// 1'000'000 + its place among all inserted rows of the case, in transaction and statement order.
constexpr std::int64_t kInsertedRowIds = 1'000'000;

}  // namespace

InstrumentationOptions instrumentation_options(const EngineCapabilities& engine) {
  InstrumentationOptions o;
  o.update_returning = engine.update_returning;
  o.delete_returning = engine.delete_returning;
  return o;
}

bool is_instrumented(const TestCase& c) {
  return !c.schema.tables.empty() && c.schema.tables.front().find_column(kRowIdColumn) != nullptr;
}

TestCase instrument(const TestCase& c, const InstrumentationOptions& options) {
  TestCase out = c;
  std::int64_t next_initial = 1;
  for (Table& t : out.schema.tables) {
    t.columns.push_back(Column{kRowIdColumn, ColumnType::Integer, false});
    t.columns.push_back(Column{kWriterListColumn, ColumnType::Text, true});
    for (Row& r : t.rows) {
      r.emplace_back(next_initial++);
      r.emplace_back("0");
    }
  }
  std::int64_t next_inserted = kInsertedRowIds;
  for (std::size_t i = 0; i < out.transactions.size(); ++i) {
    const std::string id = std::to_string(i + 1);
    for (Statement& s : out.transactions[i].statements) {
      switch (s.kind) {
        case StatementKind::Select:
          if (!s.columns.empty()) {
            s.columns.push_back(kRowIdColumn);
            s.columns.push_back(kWriterListColumn);
          }
          break;
        case StatementKind::Insert:
          s.columns.push_back(kRowIdColumn);
          s.columns.push_back(kWriterListColumn);
          for (auto& row : s.values) {
            row.push_back(Expr::lit(Value(next_inserted++)));
            row.push_back(Expr::lit(Value(id)));
          }
          break;
        case StatementKind::Update:
          s.assignments.push_back(Assignment{
              kWriterListColumn,
              Expr::binary(BinaryOp::Concat, Expr::col(kWriterListColumn), Expr::lit(Value("," + id)))});
          if (options.update_returning) s.returning = {kRowIdColumn, kWriterListColumn};
          break;
        case StatementKind::Delete:
          if (options.delete_returning) s.returning = {kRowIdColumn, kWriterListColumn};
          break;
        default: break;
      }
    }
  }
  if (options.observer && !out.transactions.empty()) {
    // The observer runs after everything else ended, at the strongest level of the case, so that it is never the
    // weakest transaction a phenomenon involves.
    Transaction observer;
    observer.isolation = out.transactions.front().isolation;
    for (const Transaction& t : out.transactions) observer.isolation = std::max(observer.isolation, t.isolation);
    for (const Table& t : out.schema.tables) observer.statements.push_back(Statement::select(t.name));
    const int index = static_cast<int>(out.transactions.size());
    out.transactions.push_back(observer);
    out.order.insert(out.order.end(), observer.step_count(), index);
  }
  return out;
}

TestCase strip_instrumentation(const TestCase& c) {
  if (!is_instrumented(c)) return c;
  TestCase out = c;
  for (Table& t : out.schema.tables) {
    std::vector<std::size_t> drop;
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (is_hidden(t.columns[i].name)) drop.push_back(i);
    for (auto it = drop.rbegin(); it != drop.rend(); ++it) {
      t.columns.erase(t.columns.begin() + static_cast<std::ptrdiff_t>(*it));
      for (Row& r : t.rows) r.erase(r.begin() + static_cast<std::ptrdiff_t>(*it));
    }
  }
  // The observer is the last transaction and reads every table; it was appended last to the order.
  const int last = static_cast<int>(out.transactions.size()) - 1;
  if (last >= 1 && out.order.size() >= out.transactions[static_cast<std::size_t>(last)].step_count() &&
      std::all_of(out.order.end() - static_cast<std::ptrdiff_t>(out.transactions.back().step_count()), out.order.end(),
                  [&](int t) { return t == last; })) {
    out.order.resize(out.order.size() - out.transactions.back().step_count());
    out.transactions.pop_back();
  }
  for (Transaction& t : out.transactions)
    for (Statement& s : t.statements) s = strip_instrumentation_of(s);
  return out;
}

Statement strip_instrumentation_of(const Statement& statement) {
  Statement s = statement;
  std::erase_if(s.assignments, [](const Assignment& a) { return is_hidden(a.column); });
  std::erase_if(s.returning, is_hidden);
  for (std::size_t i = s.columns.size(); i-- > 0;)
    if (is_hidden(s.columns[i])) {
      s.columns.erase(s.columns.begin() + static_cast<std::ptrdiff_t>(i));
      for (auto& row : s.values) row.erase(row.begin() + static_cast<std::ptrdiff_t>(i));
    }
  return s;
}

std::optional<std::vector<std::uint32_t>> parse_writer_list(const std::string& text) {
  std::vector<std::uint32_t> out;
  std::uint64_t current = 0;
  bool digits = false;
  for (char ch : text) {
    if (ch >= '0' && ch <= '9') {
      current = current * 10 + static_cast<std::uint64_t>(ch - '0');
      if (current > 0xffffffffu) return std::nullopt;
      digits = true;
    } else if (ch == ',' && digits) {
      out.push_back(static_cast<std::uint32_t>(current));
      current = 0;
      digits = false;
    } else {
      return std::nullopt;
    }
  }
  if (!digits) return std::nullopt;
  out.push_back(static_cast<std::uint32_t>(current));
  return out;
}

}  // namespace txprop::adya
