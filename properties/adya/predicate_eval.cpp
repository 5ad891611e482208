#include "predicate_eval.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace txprop::adya {

namespace {

using Opt = std::optional<Value>;

const Value kNull;
Value truth(bool b) { return Value(static_cast<std::int64_t>(b ? 1 : 0)); }

// 1 true, 0 false, -1 NULL, nullopt unknown.
std::optional<int> truth_of(const Opt& v) {
  if (!v) return std::nullopt;
  if (v->is_null()) return -1;
  if (v->type() == ValueType::Integer) return v->as_int() != 0 ? 1 : 0;
  return std::nullopt;
}

bool lower_letters(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}
bool ascii(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}
std::string fold(std::string s) {  // case and trailing spaces, the collation differences txprop knows of
  while (!s.empty() && s.back() == ' ') s.pop_back();
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}
bool integral(const Value& v) {
  return v.type() == ValueType::Integer || (v.type() == ValueType::Real && std::isfinite(v.as_real()) &&
                                            v.as_real() == std::floor(v.as_real()) && std::abs(v.as_real()) < 1e15);
}

// A number every engine holds exactly however it converts it: an integral value, or a multiple of 1/16 below 2^19 in
// magnitude (at most 23 significant bits, so exact as a float4 (PostgreSQL's CAST AS REAL) and a double; at most 14
// significant decimal digits, so exact as a DECIMAL or NUMERIC literal and in PostgreSQL's 15-digit float8 -> numeric
// conversion). The generated REAL values (0.5, 1.5, 2.5, 3.25, -0.5: generators/test_case_gen.cpp kReals) and their
// sums are such; 0.1 is not.
bool exact(const Value& v) {
  if (integral(v)) return true;
  if (v.type() != ValueType::Real || !std::isfinite(v.as_real()) || std::abs(v.as_real()) >= 524288.0) return false;
  const double sixteenths = v.as_real() * 16;
  return sixteenths == std::floor(sixteenths);
}

// -1, 0, 1, or nullopt when the engines could disagree.
std::optional<int> compare(const Value& a, const Value& b, bool equality_only) {
  if (a.is_number() && b.is_number()) {
    if (a.type() == ValueType::Integer && b.type() == ValueType::Integer)
      return a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int() ? 1 : 0;
    // Otherwise the engines compare as doubles (PostgreSQL: float8 = numeric through the implicit numeric -> float8
    // cast; MariaDB: "as floating-point values if the other argument is a floating-point value", manual "Type
    // Conversion"; SQLite: REAL), which for exact values is the values' own order. Checked on PostgreSQL 15.18,
    // MariaDB 10.11.19 and SQLite 3.40 with a DOUBLE column holding 2.5, 3.25, -0.5, 1.5, 0.5: =, IS DISTINCT FROM,
    // <, BETWEEN, IN, against a BIGINT column and CAST(v AS REAL) = 3.25, every answer as here.
    if (!exact(a) || !exact(b)) return std::nullopt;  // REAL rounding: each engine converts its own way
    const double x = a.as_number(), y = b.as_number();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.type() == ValueType::Text && b.type() == ValueType::Text) {
    const std::string &x = a.as_text(), &y = b.as_text();
    if (equality_only) {
      if (x == y) return 0;
      if (ascii(x) && ascii(y) && fold(x) != fold(y)) return x < y ? -1 : 1;
      return std::nullopt;
    }
    if (lower_letters(x) && lower_letters(y)) return x < y ? -1 : x > y ? 1 : 0;
    return std::nullopt;
  }
  return std::nullopt;
}

Opt arith(BinaryOp op, const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return kNull;
  if (a.type() != ValueType::Integer || b.type() != ValueType::Integer) return std::nullopt;
  std::int64_t r = 0;
  const std::int64_t x = a.as_int(), y = b.as_int();
  switch (op) {
    case BinaryOp::Add:
      if (__builtin_add_overflow(x, y, &r)) return std::nullopt;
      return Value(r);
    case BinaryOp::Sub:
      if (__builtin_sub_overflow(x, y, &r)) return std::nullopt;
      return Value(r);
    case BinaryOp::Mul:
      if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
      return Value(r);
    case BinaryOp::Mod:  // truncated division in every dialect; x % 0 is an error or NULL depending on the engine
      if (y == 0 || (y == -1 && x == std::numeric_limits<std::int64_t>::min())) return std::nullopt;
      return Value(x % y);
    default: return std::nullopt;
  }
}

// x = y as a three-valued truth (1, 0, -1 NULL) or nullopt.
std::optional<int> equals(const Opt& a, const Opt& b) {
  if (!a || !b) return std::nullopt;
  if (a->is_null() || b->is_null()) return -1;
  const auto c = compare(*a, *b, true);
  if (!c) return std::nullopt;
  return *c == 0 ? 1 : 0;
}

Opt from_truth(std::optional<int> t) {
  if (!t) return std::nullopt;
  return *t < 0 ? kNull : truth(*t == 1);
}

std::optional<int> not_truth(std::optional<int> t) {
  if (!t || *t < 0) return t;
  return *t == 1 ? 0 : 1;
}

// x IS [NOT] TRUE | FALSE: never NULL (NULL IS TRUE and NULL IS FALSE are FALSE); a non-zero integer IS TRUE (MariaDB
// and SQLite: 2 IS TRUE is 1, while 2 = TRUE is 0, which equals() gives), PostgreSQL 15 manual 9.2 "IS TRUE".
Opt is_truth(std::optional<int> t, bool truth_value, bool negated) {
  if (!t) return std::nullopt;
  const bool is = *t >= 0 && (*t == 1) == truth_value;
  return truth(is != negated);
}

// a IS [NOT] DISTINCT FROM b (MariaDB's <=>): NULL equals NULL, NULL differs from any value, never NULL itself.
Opt is_distinct(const Opt& a, const Opt& b, bool negated) {
  if (!a || !b) return std::nullopt;
  std::optional<int> same;
  if (a->is_null() || b->is_null()) same = a->is_null() && b->is_null() ? 1 : 0;
  else same = equals(a, b);
  if (!same) return std::nullopt;
  return truth((*same == 1) == negated);
}

// CAST(v AS type), only where every engine gives the same value: an integer to its decimal text (PostgreSQL ::TEXT,
// MariaDB CAST AS CHAR, SQLite CAST AS TEXT all print "-5"), an integer to a REAL of the same value, and a value to its
// own type. REAL to INTEGER rounds differently (SQLite truncates, PostgreSQL and MariaDB round) and text to a number
// parses differently (PostgreSQL fails on 'a', MariaDB gives 0): unknown.
Opt cast(const Opt& v, ValueType to) {
  if (!v) return std::nullopt;
  if (v->is_null()) return kNull;
  if (v->type() == to) return v;
  if (v->type() == ValueType::Integer && to == ValueType::Text) return Value(std::to_string(v->as_int()));
  if (v->type() == ValueType::Integer && to == ValueType::Real && std::abs(v->as_int()) < (std::int64_t{1} << 53))
    return Value(static_cast<double>(v->as_int()));
  return std::nullopt;
}

}  // namespace

std::optional<Value> evaluate(const Expr& e, const Table& table, const Row& row) {
  switch (e.kind) {
    case Expr::Kind::Literal: return e.literal;
    case Expr::Kind::Column: {
      const auto i = table.column_index(e.column);
      if (!i || *i >= row.size()) return std::nullopt;
      return row[*i];
    }
    case Expr::Kind::Not: return from_truth(not_truth(truth_of(evaluate(e.args[0], table, row))));
    case Expr::Kind::Neg: {
      const Opt v = evaluate(e.args[0], table, row);
      if (!v) return std::nullopt;
      if (v->is_null()) return kNull;
      if (v->type() != ValueType::Integer || v->as_int() == std::numeric_limits<std::int64_t>::min())
        return std::nullopt;
      return Value(-v->as_int());
    }
    case Expr::Kind::Binary: {
      if (e.op == BinaryOp::And || e.op == BinaryOp::Or) {
        const auto a = truth_of(evaluate(e.args[0], table, row));
        const auto b = truth_of(evaluate(e.args[1], table, row));
        const int dominant = e.op == BinaryOp::And ? 0 : 1;  // FALSE decides AND, TRUE decides OR
        if ((a && *a == dominant) || (b && *b == dominant)) return truth(dominant == 1);
        if (!a || !b) return std::nullopt;
        if (*a < 0 || *b < 0) return kNull;
        return truth(dominant == 1 ? (*a == 1 || *b == 1) : (*a == 1 && *b == 1));
      }
      const Opt a = evaluate(e.args[0], table, row);
      const Opt b = evaluate(e.args[1], table, row);
      if (!a || !b) return std::nullopt;
      switch (e.op) {
        case BinaryOp::Add:
        case BinaryOp::Sub:
        case BinaryOp::Mul:
        case BinaryOp::Mod: return arith(e.op, *a, *b);
        case BinaryOp::Concat:
          if (a->is_null() || b->is_null()) return kNull;
          if (a->type() != ValueType::Text || b->type() != ValueType::Text) return std::nullopt;
          return Value(a->as_text() + b->as_text());
        case BinaryOp::Eq: return from_truth(equals(a, b));
        case BinaryOp::Ne: return from_truth(not_truth(equals(a, b)));
        default: {
          if (a->is_null() || b->is_null()) return kNull;
          const auto c = compare(*a, *b, false);
          if (!c) return std::nullopt;
          switch (e.op) {
            case BinaryOp::Lt: return truth(*c < 0);
            case BinaryOp::Le: return truth(*c <= 0);
            case BinaryOp::Gt: return truth(*c > 0);
            case BinaryOp::Ge: return truth(*c >= 0);
            default: return std::nullopt;  // an operator this evaluator does not know (e.g. one added later)
          }
        }
      }
    }
    case Expr::Kind::IsNull: {
      const Opt v = evaluate(e.args[0], table, row);
      if (!v) return std::nullopt;
      return truth(v->is_null() != e.negated);
    }
    case Expr::Kind::InList: {
      const Opt x = evaluate(e.args[0], table, row);
      bool unknown = false, null = false;
      for (std::size_t i = 1; i < e.args.size(); ++i) {
        const auto t = equals(x, evaluate(e.args[i], table, row));
        if (t && *t == 1) return truth(!e.negated);
        if (!t) unknown = true;
        else if (*t < 0) null = true;
      }
      if (unknown) return std::nullopt;
      if (null) return kNull;
      return truth(e.negated);
    }
    case Expr::Kind::Between: {
      const Opt x = evaluate(e.args[0], table, row);
      const Opt lo = evaluate(e.args[1], table, row);
      const Opt hi = evaluate(e.args[2], table, row);
      if (!x || !lo || !hi) return std::nullopt;
      auto side = [&](const Value& bound, bool lower) -> std::optional<int> {
        if (x->is_null() || bound.is_null()) return -1;
        const auto c = compare(*x, bound, false);
        if (!c) return std::nullopt;
        return (lower ? *c >= 0 : *c <= 0) ? 1 : 0;
      };
      const auto a = side(*lo, true), b = side(*hi, false);
      if ((a && *a == 0) || (b && *b == 0)) return truth(false);
      if (!a || !b) return std::nullopt;
      if (*a < 0 || *b < 0) return kNull;
      return truth(true);
    }
    case Expr::Kind::Case: {
      // CASE WHEN c THEN a ELSE b END: a where c is TRUE, b where it is FALSE or NULL; only that branch is evaluated.
      const auto c = truth_of(evaluate(e.args[0], table, row));
      if (!c) return std::nullopt;
      return evaluate(e.args[*c == 1 ? 1 : 2], table, row);
    }
    case Expr::Kind::Subquery:
    case Expr::Kind::InSubquery:
    case Expr::Kind::Exists: return std::nullopt;       // their version sets are not recorded
    case Expr::Kind::Aggregate: return std::nullopt;    // a HAVING aggregate is over many rows, not this version
    case Expr::Kind::Excluded: return std::nullopt;     // an upsert's proposed value: Adya refuses upserts
    // TRUE / FALSE are 1 / 0 in every engine here, and a BOOLEAN column reads back as 1 / 0 (MariaDB's BOOLEAN is
    // TINYINT(1), SQLite stores integers, the PostgreSQL driver maps 't' / 'f'): checked by hand on PostgreSQL 15,
    // MariaDB 10.11 and SQLite 3.40, by TruthForms.EvaluatedAsTheEnginesDo (tests/unit/truth_forms_test.cpp) and
    // against the engines by TruthValueOracles.EvaluatorAgreesWithEveryEngine (tests/targets/).
    case Expr::Kind::Boolean: return truth(e.truth);
    case Expr::Kind::IsTruth: return is_truth(truth_of(evaluate(e.args[0], table, row)), e.truth, e.negated);
    case Expr::Kind::IsDistinct:
      return is_distinct(evaluate(e.args[0], table, row), evaluate(e.args[1], table, row), e.negated);
    case Expr::Kind::Cast: return cast(evaluate(e.args[0], table, row), e.cast_type);
  }
  return std::nullopt;
}

Match matches(const std::optional<Expr>& where, const Table& table, const Row& row) {
  if (!where) return Match::Yes;
  const auto t = truth_of(evaluate(*where, table, row));
  if (!t) return Match::Unknown;
  return *t == 1 ? Match::Yes : Match::No;
}

}  // namespace txprop::adya
