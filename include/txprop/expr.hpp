// Expression trees for WHERE clauses, SET values and subqueries. Value semantics: an Expr owns its children.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "txprop/value.hpp"

namespace txprop {

// Mod: the remainder of integer division, sign of the dividend (%, in every dialect).
enum class BinaryOp { Add, Sub, Mul, Eq, Ne, Lt, Le, Gt, Ge, And, Or, Concat, Mod };
enum class Aggregate { None, Min, Max, Count, Sum };

struct Expr {
  enum class Kind {
    Literal,      // literal
    Column,       // column (unqualified: the innermost table in scope; `table` non-empty: that table's column)
    Not,          // NOT args[0]
    Neg,          // -args[0]
    Binary,       // args[0] op args[1]
    IsNull,       // args[0] IS NULL        (negated: IS NOT NULL)
    InList,       // args[0] IN (args[1..]) (negated: NOT IN)
    Between,      // args[0] BETWEEN args[1] AND args[2]
    Subquery,     // (SELECT aggregate(column) FROM table [WHERE args[0]]), a scalar
    InSubquery,   // args[0] IN (SELECT column FROM table [WHERE args[1]])
    Exists,       // EXISTS (SELECT 1 FROM table [WHERE args[0]])  (negated: NOT EXISTS); the WHERE may refer to the
                  // outer statement's table with qualified columns (a correlated subquery)
    Case,         // CASE WHEN args[0] THEN args[1] ELSE args[2] END
    Aggregate,    // aggregate(column) over the statement's rows (SELECT ... HAVING only)
    // Truth values, casts and NULL-safe comparison (issue 17 item 5), as users' cases and bug reports write them:
    Boolean,      // TRUE / FALSE (`truth`)
    IsTruth,      // args[0] IS [NOT] TRUE | FALSE (`truth`; negated: IS NOT)
    Cast,         // CAST(args[0] AS cast_type): INTEGER, REAL or TEXT, spelled per dialect
    IsDistinct,   // args[0] IS [NOT] DISTINCT FROM args[1] (negated: IS NOT DISTINCT FROM, MariaDB's <=>)
    Excluded,     // the value an upsert proposed for `column` (PostgreSQL's and SQLite's EXCLUDED.column, MariaDB's
                  // VALUES(column)): only in the SET and WHERE of INSERT ... ON CONFLICT DO UPDATE (statement.hpp)
  };

  Kind kind = Kind::Literal;
  Value literal;
  std::string column;        // Column; Subquery and InSubquery: the selected column
  std::string table;         // Subquery, InSubquery, Exists: the table read; Column: its qualifier (or empty)
  BinaryOp op = BinaryOp::Eq;
  Aggregate aggregate = Aggregate::None;
  bool negated = false;
  bool has_where = false;    // Subquery/InSubquery: whether the last argument is a WHERE predicate
  bool truth = false;        // Boolean, IsTruth: TRUE or FALSE
  ValueType cast_type = ValueType::Null;  // Cast: the type cast to (Integer, Real or Text)
  std::vector<Expr> args;

  static Expr lit(Value v);
  static Expr col(std::string name);
  static Expr binary(BinaryOp op, Expr lhs, Expr rhs);
  static Expr not_(Expr e);
  static Expr neg(Expr e);
  static Expr is_null(Expr e, bool negated = false);
  static Expr in_list(Expr e, std::vector<Expr> list, bool negated = false);
  static Expr between(Expr e, Expr low, Expr high);
  static Expr subquery(Aggregate agg, std::string table, std::string column, std::optional<Expr> where);
  static Expr in_subquery(Expr e, std::string table, std::string column, std::optional<Expr> where);
  static Expr exists(std::string table, std::optional<Expr> where, bool negated = false);
  static Expr case_(Expr when, Expr then, Expr otherwise);
  static Expr aggregate_of(Aggregate agg, std::string column);
  // table.column
  static Expr qcol(std::string table, std::string column);
  static Expr boolean(bool truth);
  static Expr is_truth(Expr e, bool truth, bool negated = false);
  static Expr cast(Expr e, ValueType type);
  static Expr is_distinct(Expr a, Expr b, bool negated = false);
  // Whether a truth value, IS [NOT] TRUE / FALSE, CAST or IS [NOT] DISTINCT FROM occurs anywhere in this tree.
  bool has_truth_form() const;
  // EXCLUDED.column
  static Expr excluded(std::string column);

  // Tables read by subqueries anywhere in this tree.
  void collect_subquery_tables(std::vector<std::string>& out) const;
  // Whether EXCLUDED.column occurs anywhere in this tree.
  bool mentions_excluded() const;
  // Number of nodes, the measure shrinking reduces.
  std::size_t size() const;

  friend bool operator==(const Expr&, const Expr&) = default;
};

inline Expr operator&&(Expr a, Expr b) { return Expr::binary(BinaryOp::And, std::move(a), std::move(b)); }
inline Expr operator||(Expr a, Expr b) { return Expr::binary(BinaryOp::Or, std::move(a), std::move(b)); }

std::string to_string(BinaryOp op);  // SQL spelling, e.g. "<=" ("||" for Concat)

}  // namespace txprop
