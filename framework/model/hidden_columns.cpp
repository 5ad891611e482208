#include "txprop/hidden_columns.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace txprop {

bool HiddenColumns::is_hidden(std::string_view column) const {
  return std::any_of(columns_.begin(), columns_.end(), [&](const Column& c) { return c.name == column; });
}

bool HiddenColumns::in(const Schema& schema) const {
  return !schema.tables.empty() && !columns_.empty() && schema.tables.front().find_column(columns_.front().name);
}

void HiddenColumns::add_to(Schema& schema, const std::function<Row(std::int64_t n)>& values) const {
  std::int64_t n = 1;
  for (Table& t : schema.tables) {
    t.columns.insert(t.columns.end(), columns_.begin(), columns_.end());
    for (Row& r : t.rows) {
      Row added = values(n++);
      r.insert(r.end(), std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()));
    }
  }
}

void HiddenColumns::strip_from(Schema& schema) const {
  for (Table& t : schema.tables)
    for (std::size_t i = t.columns.size(); i-- > 0;)
      if (is_hidden(t.columns[i].name)) {
        t.columns.erase(t.columns.begin() + static_cast<std::ptrdiff_t>(i));
        for (Row& r : t.rows)
          if (i < r.size()) r.erase(r.begin() + static_cast<std::ptrdiff_t>(i));
      }
}

void HiddenColumns::strip_from(Statement& s) const {
  std::erase_if(s.assignments, [&](const Assignment& a) { return is_hidden(a.column); });
  std::erase_if(s.order_by, [&](const OrderItem& o) { return is_hidden(o.column); });
  for (std::size_t i = s.columns.size(); i-- > 0;)
    if (is_hidden(s.columns[i])) {
      s.columns.erase(s.columns.begin() + static_cast<std::ptrdiff_t>(i));
      for (auto& row : s.values)
        if (i < row.size()) row.erase(row.begin() + static_cast<std::ptrdiff_t>(i));
    }
}

std::vector<std::string> HiddenColumns::leading(const Table* table) const {
  std::vector<std::string> out;
  for (const Column& c : columns_) out.push_back(c.name);
  if (table)
    for (const Column& c : table->columns)
      if (!is_hidden(c.name)) out.push_back(c.name);
  return out;
}

Row HiddenColumns::visible(const Table& table, const Row& row) const {
  Row v;
  for (std::size_t i = 0; i < row.size() && i < table.columns.size(); ++i)
    if (!is_hidden(table.columns[i].name)) v.push_back(row[i]);
  return v;
}

Outcome HiddenColumns::visible(Outcome o) const {
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < o.columns.size(); ++i)
    if (!is_hidden(o.columns[i])) keep.push_back(i);
  std::vector<std::string> columns;
  for (std::size_t i : keep) columns.push_back(o.columns[i]);
  for (Row& r : o.rows) {
    Row v;
    for (std::size_t i : keep)
      if (i < r.size()) v.push_back(r[i]);
    r = std::move(v);
  }
  o.columns = std::move(columns);
  return o;
}

namespace {

// A secondary index of `t` that holds, with the primary key, every column of `t`; null if none.
const Index* covering_index(const Table& t) {
  for (const Index& i : t.indexes) {
    const auto held = [&](const Column& c) {
      const auto in = [&](const std::vector<std::string>& cols) {
        return std::find(cols.begin(), cols.end(), c.name) != cols.end();
      };
      return in(i.columns) || in(t.primary_key);
    };
    if (std::all_of(t.columns.begin(), t.columns.end(), held)) return &i;
  }
  return nullptr;
}

// Whether `s`, in a transaction at `level`, reads `table` with a current read.
bool current_read_of(const Statement& s, IsolationLevel level, const std::string& table, const EngineCapabilities& e) {
  const auto& locking = e.locking_plain_reads;
  const bool current = s.kind == StatementKind::Update || s.kind == StatementKind::Delete || s.lock != LockMode::None ||
                       (s.is_read() && std::find(locking.begin(), locking.end(), level) != locking.end());
  const std::vector<std::string> tables = s.tables();
  return current && std::find(tables.begin(), tables.end(), table) != tables.end();
}

}  // namespace

std::string hidden_columns_uncover_an_index(const TestCase& c, const EngineCapabilities& engine) {
  if (engine.writes_read_snapshot) return {};
  for (const Table& table : c.schema.tables) {
    const Index* index = covering_index(table);
    if (index == nullptr) continue;
    for (std::size_t t = 0; t < c.transactions.size(); ++t)
      for (std::size_t i = 0; i < c.transactions[t].statements.size(); ++i) {
        if (!current_read_of(c.transactions[t].statements[i], c.transactions[t].isolation, table.name, engine))
          continue;
        for (std::size_t w = 0; w < c.transactions.size(); ++w)
          for (const Statement& s : c.transactions[w].statements) {
            const std::vector<std::string> written = s.written_tables();
            if (w != t && std::find(written.begin(), written.end(), table.name) != written.end())
              return fmt::format("index {} ({}) covers {} and T{}.{} reads it with a current read while T{} writes it",
                                 index->name, fmt::join(index->columns, ","), table.name, t, i + 1, w);
          }
      }
  }
  return {};
}

Assignment set_where_a_value_changes(const Statement& s, const std::string& column, Expr value) {
  std::optional<Expr> changed;
  for (const Assignment& a : s.assignments) {
    Expr differs = Expr::is_distinct(Expr::col(a.column), a.value);
    changed = changed ? Expr::binary(BinaryOp::Or, std::move(*changed), std::move(differs)) : std::move(differs);
  }
  return Assignment{column, Expr::case_(std::move(*changed), std::move(value), Expr::col(column)), {}};
}

}  // namespace txprop
