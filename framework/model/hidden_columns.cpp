#include "txprop/hidden_columns.hpp"

#include <algorithm>

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

}  // namespace txprop
