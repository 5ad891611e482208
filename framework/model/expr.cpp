#include "txprop/expr.hpp"

#include <algorithm>

namespace txprop {

Expr Expr::lit(Value v) {
  Expr e;
  e.kind = Kind::Literal;
  e.literal = std::move(v);
  return e;
}

Expr Expr::col(std::string name) {
  Expr e;
  e.kind = Kind::Column;
  e.column = std::move(name);
  return e;
}

Expr Expr::binary(BinaryOp op, Expr lhs, Expr rhs) {
  Expr e;
  e.kind = Kind::Binary;
  e.op = op;
  e.args = {std::move(lhs), std::move(rhs)};
  return e;
}

Expr Expr::not_(Expr inner) {
  Expr e;
  e.kind = Kind::Not;
  e.args = {std::move(inner)};
  return e;
}

Expr Expr::neg(Expr inner) {
  Expr e;
  e.kind = Kind::Neg;
  e.args = {std::move(inner)};
  return e;
}

Expr Expr::is_null(Expr inner, bool negated) {
  Expr e;
  e.kind = Kind::IsNull;
  e.negated = negated;
  e.args = {std::move(inner)};
  return e;
}

Expr Expr::in_list(Expr inner, std::vector<Expr> list, bool negated) {
  Expr e;
  e.kind = Kind::InList;
  e.negated = negated;
  e.args.push_back(std::move(inner));
  for (auto& x : list) e.args.push_back(std::move(x));
  return e;
}

Expr Expr::between(Expr inner, Expr low, Expr high) {
  Expr e;
  e.kind = Kind::Between;
  e.args = {std::move(inner), std::move(low), std::move(high)};
  return e;
}

Expr Expr::subquery(Aggregate agg, std::string table, std::string column, std::optional<Expr> where) {
  Expr e;
  e.kind = Kind::Subquery;
  e.aggregate = agg;
  e.table = std::move(table);
  e.column = std::move(column);
  if (where) {
    e.has_where = true;
    e.args.push_back(std::move(*where));
  }
  return e;
}

Expr Expr::in_subquery(Expr inner, std::string table, std::string column, std::optional<Expr> where) {
  Expr e;
  e.kind = Kind::InSubquery;
  e.table = std::move(table);
  e.column = std::move(column);
  e.args.push_back(std::move(inner));
  if (where) {
    e.has_where = true;
    e.args.push_back(std::move(*where));
  }
  return e;
}

Expr Expr::exists(std::string table, std::optional<Expr> where, bool negated) {
  Expr e;
  e.kind = Kind::Exists;
  e.table = std::move(table);
  e.negated = negated;
  if (where) {
    e.has_where = true;
    e.args.push_back(std::move(*where));
  }
  return e;
}

Expr Expr::boolean(bool truth) {
  Expr e;
  e.kind = Kind::Boolean;
  e.truth = truth;
  return e;
}

Expr Expr::is_truth(Expr inner, bool truth, bool negated) {
  Expr e;
  e.kind = Kind::IsTruth;
  e.truth = truth;
  e.negated = negated;
  e.args = {std::move(inner)};
  return e;
}

Expr Expr::cast(Expr inner, ValueType type) {
  Expr e;
  e.kind = Kind::Cast;
  e.cast_type = type;
  e.args = {std::move(inner)};
  return e;
}

Expr Expr::is_distinct(Expr a, Expr b, bool negated) {
  Expr e;
  e.kind = Kind::IsDistinct;
  e.negated = negated;
  e.args = {std::move(a), std::move(b)};
  return e;
}

bool Expr::has_truth_form() const {
  if (kind == Kind::Boolean || kind == Kind::IsTruth || kind == Kind::Cast || kind == Kind::IsDistinct) return true;
  return std::any_of(args.begin(), args.end(), [](const Expr& a) { return a.has_truth_form(); });
}

Expr Expr::case_(Expr when, Expr then, Expr otherwise) {
  Expr e;
  e.kind = Kind::Case;
  e.args = {std::move(when), std::move(then), std::move(otherwise)};
  return e;
}

Expr Expr::aggregate_of(Aggregate agg, std::string column) {
  Expr e;
  e.kind = Kind::Aggregate;
  e.aggregate = agg;
  e.column = std::move(column);
  return e;
}

Expr Expr::qcol(std::string table, std::string column) {
  Expr e = col(std::move(column));
  e.table = std::move(table);
  return e;
}

Expr Expr::excluded(std::string column) {
  Expr e;
  e.kind = Kind::Excluded;
  e.column = std::move(column);
  return e;
}

bool Expr::mentions_excluded() const {
  if (kind == Kind::Excluded) return true;
  for (const auto& a : args)
    if (a.mentions_excluded()) return true;
  return false;
}

void Expr::collect_subquery_tables(std::vector<std::string>& out) const {
  if (kind == Kind::Subquery || kind == Kind::InSubquery || kind == Kind::Exists) out.push_back(table);
  for (const auto& a : args) a.collect_subquery_tables(out);
}

std::size_t Expr::size() const {
  std::size_t n = 1;
  for (const auto& a : args) n += a.size();
  return n;
}

std::string to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Eq: return "=";
    case BinaryOp::Ne: return "<>";
    case BinaryOp::Lt: return "<";
    case BinaryOp::Le: return "<=";
    case BinaryOp::Gt: return ">";
    case BinaryOp::Ge: return ">=";
    case BinaryOp::And: return "AND";
    case BinaryOp::Or: return "OR";
    case BinaryOp::Concat: return "||";
  }
  return "?";
}

}  // namespace txprop
