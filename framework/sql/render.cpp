// SQL text for each dialect. Differences handled here: identifier quoting, string escaping (MySQL also treats
// backslash as an escape), column types, string concatenation (|| is OR in MySQL), shared-lock syntax
// (MariaDB 10.11 only has LOCK IN SHARE MODE), transaction start and the per-session isolation statement.
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "txprop/foreign_key_checks.hpp"
#include "txprop/sql.hpp"

namespace txprop {

std::string to_string(Dialect d) {
  switch (d) {
    case Dialect::Portable: return "portable";
    case Dialect::Sqlite: return "sqlite";
    case Dialect::PostgreSql: return "postgresql";
    case Dialect::MySql: return "mysql";
  }
  return "?";
}

std::string quote_identifier(const std::string& name, Dialect d) {
  switch (d) {
    case Dialect::Portable: return name;
    case Dialect::MySql: {
      std::string out = "`";
      for (char c : name) out += c == '`' ? std::string("``") : std::string(1, c);
      return out + "`";
    }
    case Dialect::Sqlite:
    case Dialect::PostgreSql: {
      std::string out = "\"";
      for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
      return out + "\"";
    }
  }
  return name;
}

std::string render_literal(const Value& v, Dialect d) {
  if (v.type() != ValueType::Text) return v.to_string();
  std::string out = "'";
  for (char c : v.as_text()) {
    if (c == '\'') out += "''";
    else if (c == '\\' && d == Dialect::MySql) out += "\\\\";
    else out += c;
  }
  return out + "'";
}

std::string render_type(ColumnType type, Dialect d) {
  switch (type) {
    case ColumnType::Integer:
      return (d == Dialect::PostgreSql || d == Dialect::MySql) ? "BIGINT" : "INTEGER";
    case ColumnType::Real:
      if (d == Dialect::PostgreSql) return "DOUBLE PRECISION";
      if (d == Dialect::MySql) return "DOUBLE";
      return "REAL";
    case ColumnType::Text:
      // A length is needed to index a MySQL text column; 255 leaves room for writer lists (instrumentation).
      return d == Dialect::MySql ? "VARCHAR(255)" : "TEXT";
    case ColumnType::Boolean: return "BOOLEAN";
  }
  return "?";
}

namespace {

// Binding strength, loosest first; parentheses are added where a child binds more loosely than its parent.
int precedence(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Binary:
      switch (e.op) {
        case BinaryOp::Or: return 1;
        case BinaryOp::And: return 2;
        case BinaryOp::Eq:
        case BinaryOp::Ne:
        case BinaryOp::Lt:
        case BinaryOp::Le:
        case BinaryOp::Gt:
        case BinaryOp::Ge: return 4;
        case BinaryOp::Concat: return 5;
        case BinaryOp::Add:
        case BinaryOp::Sub: return 6;
        case BinaryOp::Mul:
        case BinaryOp::Mod: return 7;
      }
      return 0;
    case Expr::Kind::Not: return 3;
    case Expr::Kind::Exists: return e.negated ? 3 : 9;
    case Expr::Kind::IsNull:
    case Expr::Kind::IsTruth:
    case Expr::Kind::IsDistinct:
    case Expr::Kind::InList:
    case Expr::Kind::Between:
    case Expr::Kind::InSubquery: return 4;
    case Expr::Kind::Neg: return 8;
    default: return 9;
  }
}

std::string render_expr(const Expr& e, Dialect d);

// CAST's target type per dialect: MariaDB casts to SIGNED, DOUBLE (10.4+) and CHAR (KB "CAST").
std::string cast_type_name(ValueType t, Dialect d) {
  switch (t) {
    case ValueType::Integer: return d == Dialect::MySql ? "SIGNED" : d == Dialect::PostgreSql ? "BIGINT" : "INTEGER";
    case ValueType::Real: return d == Dialect::MySql ? "DOUBLE" : d == Dialect::PostgreSql ? "DOUBLE PRECISION" : "REAL";
    case ValueType::Text: return d == Dialect::MySql ? "CHAR" : "TEXT";
    case ValueType::Null: break;
  }
  throw std::invalid_argument("CAST without a type");
}

// A child printed in a context of strength `parent`; `strict` also parenthesises equal strength
// (right operands of left-associative operators, operands of non-associative comparisons).
std::string child(const Expr& e, int parent, Dialect d, bool strict = false) {
  const int p = precedence(e);
  std::string s = render_expr(e, d);
  if (p < parent || (strict && p == parent)) return "(" + s + ")";
  return s;
}

std::string aggregate_name(Aggregate a) {
  switch (a) {
    case Aggregate::Min: return "MIN";
    case Aggregate::Max: return "MAX";
    case Aggregate::Count: return "COUNT";
    case Aggregate::Sum: return "SUM";
    case Aggregate::None: return "";
  }
  return "";
}

std::string render_expr(const Expr& e, Dialect d) {
  switch (e.kind) {
    case Expr::Kind::Literal: return render_literal(e.literal, d);
    case Expr::Kind::Column:
      return e.table.empty() ? quote_identifier(e.column, d)
                             : quote_identifier(e.table, d) + "." + quote_identifier(e.column, d);
    case Expr::Kind::Exists: {
      std::string out = fmt::format("{}EXISTS (SELECT 1 FROM {}", e.negated ? "NOT " : "", quote_identifier(e.table, d));
      if (e.has_where) out += " WHERE " + render_expr(e.args.back(), d);
      return out + ")";
    }
    case Expr::Kind::Aggregate: return fmt::format("{}({})", aggregate_name(e.aggregate), quote_identifier(e.column, d));
    case Expr::Kind::Excluded:
      // MariaDB 10.11 names the proposed value VALUES(c) (MariaDB KB "VALUES() / VALUE()"); PostgreSQL and SQLite
      // name the proposed row EXCLUDED (PostgreSQL 15 manual, INSERT "ON CONFLICT Clause"; SQLite "UPSERT").
      return d == Dialect::MySql ? "VALUES(" + quote_identifier(e.column, d) + ")" : "EXCLUDED." + quote_identifier(e.column, d);
    case Expr::Kind::Case:
      return fmt::format("CASE WHEN {} THEN {} ELSE {} END", render_expr(e.args[0], d), render_expr(e.args[1], d),
                         render_expr(e.args[2], d));
    case Expr::Kind::Not:
      // NOT around EXISTS keeps its parentheses: "NOT EXISTS (...)" reads back as the negated EXISTS.
      if (e.args[0].kind == Expr::Kind::Exists) return "NOT (" + render_expr(e.args[0], d) + ")";
      return "NOT " + child(e.args[0], 4, d);
    case Expr::Kind::Neg: {
      const std::string inner = child(e.args[0], 9, d);
      return inner.starts_with('-') ? "-(" + inner + ")" : "-" + inner;  // "--" would start a comment
    }
    case Expr::Kind::Binary: {
      const int p = precedence(e);
      if (e.op == BinaryOp::Concat && d == Dialect::MySql)
        return fmt::format("CONCAT({}, {})", render_expr(e.args[0], d), render_expr(e.args[1], d));
      const bool comparison = p == 4;
      return fmt::format("{} {} {}", child(e.args[0], p, d, comparison), to_string(e.op),
                         child(e.args[1], p, d, true));
    }
    case Expr::Kind::IsNull:
      return child(e.args[0], 5, d) + (e.negated ? " IS NOT NULL" : " IS NULL");
    // TRUE, FALSE and IS [NOT] TRUE | FALSE: PostgreSQL (manual 9.2), MariaDB (KB "TRUE FALSE", "IS"), SQLite 3.23+.
    case Expr::Kind::Boolean: return e.truth ? "TRUE" : "FALSE";
    case Expr::Kind::IsTruth:
      return child(e.args[0], 5, d) + (e.negated ? " IS NOT " : " IS ") + (e.truth ? "TRUE" : "FALSE");
    case Expr::Kind::Cast: return fmt::format("CAST({} AS {})", render_expr(e.args[0], d), cast_type_name(e.cast_type, d));
    // IS [NOT] DISTINCT FROM: PostgreSQL, SQLite 3.39+; MariaDB has the NULL-safe equality <=> (KB "<=>").
    case Expr::Kind::IsDistinct:
      if (d == Dialect::MySql) {
        const std::string same = child(e.args[0], 5, d) + " <=> " + child(e.args[1], 5, d);
        return e.negated ? same : "NOT (" + same + ")";
      }
      return fmt::format("{} IS {}DISTINCT FROM {}", child(e.args[0], 5, d), e.negated ? "NOT " : "", child(e.args[1], 5, d));
    case Expr::Kind::InList: {
      std::string list;
      for (std::size_t i = 1; i < e.args.size(); ++i) {
        if (i > 1) list += ", ";
        list += render_expr(e.args[i], d);
      }
      return fmt::format("{}{} IN ({})", child(e.args[0], 5, d), e.negated ? " NOT" : "", list);
    }
    case Expr::Kind::Between:
      return fmt::format("{} BETWEEN {} AND {}", child(e.args[0], 5, d), child(e.args[1], 5, d),
                         child(e.args[2], 5, d));
    case Expr::Kind::Subquery: {
      std::string out = fmt::format("(SELECT {}({}) FROM {}", aggregate_name(e.aggregate),
                                    quote_identifier(e.column, d), quote_identifier(e.table, d));
      if (e.aggregate == Aggregate::None)
        out = fmt::format("(SELECT {} FROM {}", quote_identifier(e.column, d), quote_identifier(e.table, d));
      if (e.has_where) out += " WHERE " + render_expr(e.args.back(), d);
      return out + ")";
    }
    case Expr::Kind::InSubquery: {
      std::string out = fmt::format("{} IN (SELECT {} FROM {}", child(e.args[0], 5, d),
                                    quote_identifier(e.column, d), quote_identifier(e.table, d));
      if (e.has_where) out += " WHERE " + render_expr(e.args.back(), d);
      return out + ")";
    }
  }
  return "?";
}

std::string column_list(const std::vector<std::string>& columns, Dialect d) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) out += ", ";
    out += quote_identifier(columns[i], d);
  }
  return out;
}

// " WHERE on [AND where]": the join condition of a multi-table write in the FROM / USING form.
std::string join_condition(const Statement& s, Dialect d) {
  const Expr& on = s.joins.front().on;
  return " WHERE " + render_expr(s.where ? Expr::binary(BinaryOp::And, on, *s.where) : on, d);
}

// RETURNING columns, qualified with the written table where another table is joined.
std::string returning_list(const Statement& s, Dialect d) {
  if (s.joins.empty()) return column_list(s.returning, d);
  std::string out;
  for (std::size_t i = 0; i < s.returning.size(); ++i)
    out += (i ? ", " : "") + quote_identifier(s.table, d) + "." + quote_identifier(s.returning[i], d);
  for (std::size_t i = 0; i < s.returning_joined.size(); ++i)
    out += (i || !s.returning.empty() ? ", " : "") + quote_identifier(s.joins.front().table, d) + "." +
           quote_identifier(s.returning_joined[i], d);
  return out;
}

[[noreturn]] void no_spelling(const Statement& s, Dialect d, const char* why) {
  throw std::invalid_argument(fmt::format("{} into {} has no {} spelling: {}", upsert_form(s), s.table, to_string(d), why));
}

// " FOR UPDATE [NOWAIT | SKIP LOCKED]" and the like, or "". MariaDB spells FOR SHARE `LOCK IN SHARE MODE` and takes
// NOWAIT / SKIP LOCKED after either (10.6+, https://mariadb.com/kb/en/select/#lock-in-share-mode-and-for-update-clauses);
// FOR KEY SHARE and FOR NO KEY UPDATE are PostgreSQL's own (manual 13.3.2).
std::string locking_clause(const Statement& s, Dialect d) {
  if (s.lock == LockMode::None) return {};
  if (d == Dialect::MySql && (s.lock == LockMode::KeyShare || s.lock == LockMode::NoKeyUpdate))
    throw std::invalid_argument(fmt::format("SELECT ... {} from {} has no {} spelling: the key-only lock strengths are "
                                            "PostgreSQL's", lock_clause(s), s.table, to_string(d)));
  std::string out = " " + lock_clause(s);
  if (d == Dialect::MySql && s.lock == LockMode::Share) out.replace(0, 10, " LOCK IN SHARE MODE");
  return out;
}

// INSERT INTO, or the verb of an upsert that is spelled in front: INSERT IGNORE / INSERT OR IGNORE, REPLACE INTO /
// INSERT OR REPLACE INTO (SQLite's own spelling; it reads REPLACE INTO as the same).
std::string insert_verb(const Statement& s, Dialect d) {
  if (s.upsert == Upsert::Ignore) {
    if (d == Dialect::PostgreSql) no_spelling(s, d, "PostgreSQL has no INSERT IGNORE (ON CONFLICT DO NOTHING skips only key conflicts)");
    return d == Dialect::Sqlite ? "INSERT OR IGNORE INTO" : "INSERT IGNORE INTO";
  }
  if (s.upsert == Upsert::Replace) {
    if (d == Dialect::PostgreSql) no_spelling(s, d, "PostgreSQL has no REPLACE (it deletes and re-inserts the row)");
    return d == Dialect::Sqlite ? "INSERT OR REPLACE INTO" : "REPLACE INTO";
  }
  return "INSERT INTO";
}

std::string assignment_list(const std::vector<Assignment>& assignments, Dialect d) {
  std::string out;
  for (const Assignment& a : assignments)
    out += (out.empty() ? "" : ", ") + quote_identifier(a.column, d) + " = " + render_expr(a.value, d);
  return out;
}

// " ON CONFLICT ..." / " ON DUPLICATE KEY UPDATE ...", or "".
std::string upsert_clause(const Statement& s, Dialect d) {
  if (s.upsert != Upsert::DoNothing && s.upsert != Upsert::DoUpdate) return {};
  const std::string target = s.conflict_target.empty() ? "" : " (" + column_list(s.conflict_target, d) + ")";
  if (s.upsert == Upsert::DoNothing) {
    if (d == Dialect::MySql) no_spelling(s, d, "MariaDB has no DO NOTHING (INSERT IGNORE also skips rows that break NOT NULL)");
    return " ON CONFLICT" + target + " DO NOTHING";
  }
  // MariaDB's form has no target (any unique key conflicts) and no WHERE (MariaDB KB "INSERT ON DUPLICATE KEY
  // UPDATE"). The portable text keeps it for a statement written without a target, so that it reads back the same.
  if (d == Dialect::MySql || (d == Dialect::Portable && s.conflict_target.empty())) {
    if (s.where && d == Dialect::MySql) no_spelling(s, d, "ON DUPLICATE KEY UPDATE has no WHERE");
    return " ON DUPLICATE KEY UPDATE " + assignment_list(s.assignments, d) +
           (s.where ? " WHERE " + render_expr(*s.where, d) : "");
  }
  // PostgreSQL 15: "For ON CONFLICT DO UPDATE, a conflict_target must be provided".
  if (target.empty() && d == Dialect::PostgreSql) no_spelling(s, d, "PostgreSQL's DO UPDATE names its conflict target");
  return " ON CONFLICT" + target + " DO UPDATE SET " + assignment_list(s.assignments, d) +
         (s.where ? " WHERE " + render_expr(*s.where, d) : "");
}

std::string value_rows(const std::vector<std::vector<Expr>>& values, Dialect d) {
  std::string rows;
  for (std::size_t r = 0; r < values.size(); ++r) {
    rows += r ? ", (" : "(";
    for (std::size_t i = 0; i < values[r].size(); ++i) rows += (i ? ", " : "") + render_expr(values[r][i], d);
    rows += ")";
  }
  return rows;
}

// PostgreSQL 15 manual, MERGE: MERGE INTO target USING data_source ON join_condition when_clause [...], where
// data_source is a table [AS alias] or (VALUES ...) AS alias(columns), and UPDATE SET names the target's columns
// unqualified. MariaDB 10.11 and SQLite 3.40 have no MERGE.
std::string render_merge(const Statement& s, Dialect d) {
  if (d != Dialect::PostgreSql && d != Dialect::Portable)
    throw std::invalid_argument(fmt::format("{} into {} has no {} spelling: MERGE is PostgreSQL's (15+); MariaDB and "
                                            "SQLite have none",
                                            merge_form(s), s.table, to_string(d)));
  std::string out = "MERGE INTO " + quote_identifier(s.table, d) + " USING ";
  if (!s.merge_source.empty()) {
    out += quote_identifier(s.merge_source, d);
    if (!s.alias.empty()) out += " AS " + quote_identifier(s.alias, d);
  } else {
    out += fmt::format("(VALUES {}) AS {}({})", value_rows(s.values, d), quote_identifier(s.alias, d), column_list(s.columns, d));
  }
  out += " ON " + render_expr(*s.merge_on, d);
  for (const MergeWhen& w : s.merge_whens) {
    out += w.matched ? " WHEN MATCHED" : " WHEN NOT MATCHED";
    if (w.condition) out += " AND " + render_expr(*w.condition, d);
    switch (w.action) {
      case MergeAction::Update: out += " THEN UPDATE SET " + assignment_list(w.assignments, d); break;
      case MergeAction::Delete: out += " THEN DELETE"; break;
      case MergeAction::DoNothing: out += " THEN DO NOTHING"; break;
      case MergeAction::Insert:
        out += fmt::format(" THEN INSERT ({}) VALUES {}", column_list(w.columns, d), value_rows({w.values}, d));
        break;
    }
  }
  return out;
}

// A SELECT without FROM (`SELECT 1`): its expressions only (instrumentation: EngineCapabilities::
// table_free_snapshot_levels).
std::string table_free_select(const Statement& s, Dialect d) {
  std::string list;
  for (const Expr& e : s.select_exprs) list += (list.empty() ? "" : ", ") + render_expr(e, d);
  return "SELECT " + list;
}

}  // namespace

std::string render(const Expr& e, Dialect d) { return render_expr(e, d); }

std::string render(const Statement& s, Dialect d) {
  const std::string where = s.where ? " WHERE " + render_expr(*s.where, d) : std::string();
  switch (s.kind) {
    case StatementKind::Begin: return d == Dialect::MySql ? "START TRANSACTION" : "BEGIN";
    // COMMIT AND CHAIN / ROLLBACK AND CHAIN: PostgreSQL 12+ (manual, COMMIT), MariaDB (KB, "COMMIT"); SQLite has none.
    case StatementKind::Commit:
    case StatementKind::Rollback:
      if (s.chain && d == Dialect::Sqlite)
        throw std::invalid_argument(fmt::format("{} AND CHAIN has no sqlite spelling: SQLite has no chained transactions", to_string(s.kind)));
      return to_string(s.kind) + (s.chain ? " AND CHAIN" : "");
    // The same text on PostgreSQL 15 (SAVEPOINT, ROLLBACK TO SAVEPOINT, RELEASE SAVEPOINT), MariaDB 10.11 (KB
    // "SAVEPOINT") and SQLite (https://www.sqlite.org/lang_savepoint.html).
    case StatementKind::Savepoint:
    case StatementKind::RollbackToSavepoint:
    case StatementKind::ReleaseSavepoint: return to_string(s.kind) + " " + quote_identifier(s.savepoint, d);
    case StatementKind::LockTable:
      if (d != Dialect::PostgreSql && d != Dialect::Portable)
        throw std::invalid_argument(fmt::format("{} has no {} spelling: MariaDB's LOCK TABLES commits the transaction "
                                                "and SQLite has no table locks",
                                                lock_clause(s), to_string(d)));
      return fmt::format("LOCK TABLE {} IN {} MODE{}", quote_identifier(s.table, d), s.table_lock_mode,
                         s.lock_wait == LockWait::NoWait ? " NOWAIT" : "");
    case StatementKind::Select: {
      if (s.table.empty() && s.derived.empty()) return table_free_select(s, d);
      std::string list = !s.columns.empty() ? column_list(s.columns, d)
                         : s.own_columns    ? quote_identifier(s.table, d) + ".*"
                                            : "*";
      if (!s.items.empty()) {
        list.clear();
        for (const SelectItem& i : s.items) {
          if (!list.empty()) list += ", ";
          const std::string column = i.column == "*" ? "*" : quote_identifier(i.column, d);
          list += i.aggregate == Aggregate::None ? column : fmt::format("{}({})", aggregate_name(i.aggregate), column);
          if (!i.alias.empty()) list += " AS " + quote_identifier(i.alias, d);
        }
      }
      for (const Expr& e : s.select_exprs) list += ", " + render_expr(e, d);
      std::string from = s.derived.empty() ? quote_identifier(s.table, d)
                                           : fmt::format("({}) AS {}", render(s.derived.front(), d), quote_identifier(s.alias, d));
      for (const Join& j : s.joins)
        from += fmt::format(" {} JOIN {} ON {}", j.left ? "LEFT" : "INNER", quote_identifier(j.table, d), render_expr(j.on, d));
      std::string out = fmt::format("SELECT {} FROM {}{}", list, from, where);
      if (!s.group_by.empty()) out += " GROUP BY " + column_list(s.group_by, d);
      if (s.having) out += " HAVING " + render_expr(*s.having, d);
      for (std::size_t i = 0; i < s.order_by.size(); ++i)
        out += (i ? ", " : " ORDER BY ") + quote_identifier(s.order_by[i].column, d) + (s.order_by[i].descending ? " DESC" : "");
      if (s.limit) out += fmt::format(" LIMIT {}", *s.limit);
      return out + locking_clause(s, d);
    }
    case StatementKind::Insert:
      return fmt::format("{} {} ({}) VALUES {}{}", insert_verb(s, d), quote_identifier(s.table, d),
                         column_list(s.columns, d), value_rows(s.values, d), upsert_clause(s, d));
    case StatementKind::Merge: return render_merge(s, d);
    case StatementKind::Update: {
      // A multi-table write names its SET columns with their table, except in the FROM form (PostgreSQL, SQLite),
      // which can only set the target table's columns and does not accept a qualifier there.
      const bool from_form = !s.joins.empty() && (d == Dialect::PostgreSql || d == Dialect::Sqlite);
      std::string sets;
      for (std::size_t i = 0; i < s.assignments.size(); ++i) {
        const Assignment& a = s.assignments[i];
        if (i) sets += ", ";
        if (!s.joins.empty() && !from_form) sets += quote_identifier(a.table.empty() ? s.table : a.table, d) + ".";
        sets += quote_identifier(a.column, d) + " = " + render_expr(a.value, d);
      }
      std::string out;
      if (s.joins.empty())
        out = fmt::format("UPDATE {} SET {}{}", quote_identifier(s.table, d), sets, where);
      else if (from_form)
        out = fmt::format("UPDATE {} SET {} FROM {}{}", quote_identifier(s.table, d), sets,
                          quote_identifier(s.joins.front().table, d), join_condition(s, d));
      else
        out = fmt::format("UPDATE {} INNER JOIN {} ON {} SET {}{}", quote_identifier(s.table, d),
                          quote_identifier(s.joins.front().table, d), render_expr(s.joins.front().on, d), sets, where);
      if (!s.returning.empty() || !s.returning_joined.empty()) out += " RETURNING " + returning_list(s, d);
      return out;
    }
    case StatementKind::Delete: {
      std::string out;
      if (s.joins.empty())
        out = fmt::format("DELETE FROM {}{}", quote_identifier(s.table, d), where);
      else if (s.joins.front().deleted && (d == Dialect::PostgreSql || d == Dialect::Sqlite))
        // PostgreSQL's DELETE ... USING and SQLite's DELETE delete from one table only; the generator gives this form
        // only where the profile's delete_joined_table capability says the engine has it.
        throw std::invalid_argument(fmt::format(
            "DELETE {0}, {1} FROM {0} JOIN {1} (a DELETE of two joined tables) has no {2} spelling: only MariaDB and "
            "MySQL delete from two tables in one statement",
            s.table, s.joins.front().table, d == Dialect::PostgreSql ? "PostgreSQL" : "SQLite"));
      else if (d == Dialect::PostgreSql || d == Dialect::Sqlite)
        out = fmt::format("DELETE FROM {} USING {}{}", quote_identifier(s.table, d),
                          quote_identifier(s.joins.front().table, d), join_condition(s, d));
      else
        out = fmt::format("DELETE {0}{4} FROM {0} INNER JOIN {1} ON {2}{3}", quote_identifier(s.table, d),
                          quote_identifier(s.joins.front().table, d), render_expr(s.joins.front().on, d), where,
                          s.joins.front().deleted ? ", " + quote_identifier(s.joins.front().table, d) : "");
      if (!s.returning.empty() || !s.returning_joined.empty()) out += " RETURNING " + returning_list(s, d);
      return out;
    }
  }
  return "?";
}

std::string render_create_table(const Table& t, Dialect d) {
  std::string out = "CREATE TABLE " + quote_identifier(t.name, d) + " (";
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    const Column& c = t.columns[i];
    if (i) out += ", ";
    out += quote_identifier(c.name, d) + " " + render_type(c.type, d);
    if (c.not_null) out += " NOT NULL";
  }
  if (!t.primary_key.empty()) out += ", PRIMARY KEY (" + column_list(t.primary_key, d) + ")";
  // Table constraints: the spelling every engine enforces (MySQL 8.0 parses a column's inline REFERENCES and ignores
  // it, https://dev.mysql.com/doc/refman/8.0/en/create-table-foreign-keys.html; the scenario parser reads both).
  for (const ForeignKey& fk : t.foreign_keys) {
    out += ", FOREIGN KEY (" + column_list(fk.columns, d) + ") REFERENCES " + quote_identifier(fk.table, d) + " (" +
           column_list(fk.referenced, d) + ")";
    if (fk.on_delete != ReferentialAction::NoAction) out += " ON DELETE " + to_string(fk.on_delete);
    if (fk.on_update != ReferentialAction::NoAction) out += " ON UPDATE " + to_string(fk.on_update);
  }
  out += ")";
  if (d == Dialect::MySql) out += " ENGINE=InnoDB";
  return out;
}

std::vector<std::string> render_setup(const Schema& schema, Dialect d) {
  std::vector<std::string> out;
  for (const Table& t : schema.tables) {
    out.push_back(render_create_table(t, d));
    for (const Index& i : t.indexes)
      out.push_back(fmt::format("CREATE {}INDEX {} ON {} ({})", i.unique ? "UNIQUE " : "",
                                quote_identifier(i.name, d), quote_identifier(t.name, d), column_list(i.columns, d)));
    const std::vector<std::string> triggers = render_cascade_log(t, d);
    out.insert(out.end(), triggers.begin(), triggers.end());
    if (!t.rows.empty()) out.push_back(render_insert_rows(t, d));
  }
  return out;
}

namespace {

// PostgreSQL: a trigger function per trigger (PL/pgSQL, created again with each table: DROP TABLE drops the trigger,
// not the function). Foreign-key actions are run by the RI triggers as ordinary UPDATE / DELETE statements on the
// referencing table, which fire its row triggers (checked on 15.18: ON DELETE CASCADE and SET NULL, ON UPDATE CASCADE).
// SDG's form (a CascadeLog with no log table, its writer_list the integer version key): a cascaded UPDATE changes some
// column and leaves the version key as it was (every instrumented UPDATE that changes a row sets its own), which the
// trigger moves on by kCascadedVersionStep, so the cascaded version is a new version of the row.
std::vector<std::string> postgresql_cascade_versions(const Table& t, const CascadeLog& log) {
  const Dialect d = Dialect::PostgreSql;
  const std::string vk = quote_identifier(log.writer_list, d);
  const std::string name = quote_identifier("txp_versions_" + t.name, d);
  return {fmt::format("CREATE OR REPLACE FUNCTION {}() RETURNS trigger LANGUAGE plpgsql AS $txp$BEGIN IF NEW.{} = OLD.{} "
                      "AND NEW IS DISTINCT FROM OLD THEN NEW.{} := OLD.{} + {}; END IF; RETURN NEW; END$txp$",
                      name, vk, vk, vk, vk, kCascadedVersionStep),
          fmt::format("CREATE TRIGGER {0} BEFORE UPDATE ON {1} FOR EACH ROW EXECUTE FUNCTION {0}()", name,
                      quote_identifier(t.name, d))};
}

std::vector<std::string> postgresql_cascade_log(const Table& t, const CascadeLog& log) {
  if (log.log_table.empty()) return postgresql_cascade_versions(t, log);
  const Dialect d = Dialect::PostgreSql;
  const std::string table = quote_identifier(t.name, d), wl = quote_identifier(log.writer_list, d);
  const std::string update = quote_identifier(log.log_table + "_" + t.name + "_update", d);
  const std::string del = quote_identifier(log.log_table + "_" + t.name + "_delete", d);
  const std::string writer = "current_setting('txprop.writer', true)";
  return {
      fmt::format("CREATE OR REPLACE FUNCTION {}() RETURNS trigger LANGUAGE plpgsql AS $txp$BEGIN IF NEW.{} IS NOT "
                  "DISTINCT FROM OLD.{} THEN NEW.{} := OLD.{} || ',' || coalesce({}, '?'); END IF; RETURN NEW; "
                  "END$txp$",
                  update, wl, wl, wl, wl, writer),
      fmt::format("CREATE TRIGGER {0} BEFORE UPDATE ON {1} FOR EACH ROW EXECUTE FUNCTION {0}()", update, table),
      fmt::format("CREATE OR REPLACE FUNCTION {}() RETURNS trigger LANGUAGE plpgsql AS $txp$BEGIN INSERT INTO {} "
                  "VALUES ({}, {}, OLD.{}, OLD.{}); RETURN OLD; END$txp$",
                  del, quote_identifier(log.log_table, d), writer, render_literal(Value(t.name), d),
                  quote_identifier(log.row_id, d), wl),
      fmt::format("CREATE TRIGGER {0} AFTER DELETE ON {1} FOR EACH ROW EXECUTE FUNCTION {0}()", del, table)};
}

// SQLite runs foreign-key actions like triggers and fires the child's own triggers for them, also with
// recursive_triggers off (checked on 3.40.1). An AFTER UPDATE trigger cannot change NEW: it appends with an UPDATE of
// the row, which fires no trigger again (recursive_triggers is off). txp_writer() is the driver's function (the
// session's writer, NULL on a connection that set none, as the control connection's resets).
// SDG's form: the same AFTER UPDATE, with the version key moved on where it is unchanged and another column changed.
std::vector<std::string> sqlite_cascade_versions(const Table& t, const CascadeLog& log) {
  const Dialect d = Dialect::Sqlite;
  const std::string vk = quote_identifier(log.writer_list, d), rid = quote_identifier(log.row_id, d);
  std::vector<std::string> changed;
  for (const Column& c : t.columns)
    if (c.name != log.writer_list) changed.push_back(fmt::format("NEW.{0} IS NOT OLD.{0}", quote_identifier(c.name, d)));
  return {fmt::format("CREATE TRIGGER {} AFTER UPDATE ON {} WHEN NEW.{} IS OLD.{} AND ({}) BEGIN UPDATE {} SET {} = {} + "
                      "{} WHERE {} = NEW.{}; END",
                      quote_identifier("txp_versions_" + t.name, d), quote_identifier(t.name, d), vk, vk,
                      fmt::join(changed, " OR "), quote_identifier(t.name, d), vk, vk, kCascadedVersionStep, rid, rid)};
}

std::vector<std::string> sqlite_cascade_log(const Table& t, const CascadeLog& log) {
  if (log.log_table.empty()) return sqlite_cascade_versions(t, log);
  const Dialect d = Dialect::Sqlite;
  const std::string table = quote_identifier(t.name, d), wl = quote_identifier(log.writer_list, d);
  const std::string rid = quote_identifier(log.row_id, d);
  return {fmt::format("CREATE TRIGGER {} AFTER UPDATE ON {} WHEN NEW.{} IS OLD.{} BEGIN UPDATE {} SET {} = {} || "
                      "',' || coalesce(txp_writer(), '?') WHERE {} = NEW.{}; END",
                      quote_identifier(log.log_table + "_" + t.name + "_update", d), table, wl, wl, table, wl, wl, rid,
                      rid),
          fmt::format("CREATE TRIGGER {} AFTER DELETE ON {} WHEN txp_writer() IS NOT NULL BEGIN INSERT INTO {} VALUES "
                      "(txp_writer(), {}, OLD.{}, OLD.{}); END",
                      quote_identifier(log.log_table + "_" + t.name + "_delete", d), table,
                      quote_identifier(log.log_table, d), render_literal(Value(t.name), d), rid, wl)};
}

}  // namespace

// PostgreSQL runs foreign keys as system triggers, which do not fire in the "replica" replication role (manual,
// runtime-config-client.html, session_replication_role; superuser only); MariaDB's foreign_key_checks=0 skips checks and
// actions alike (KB "Foreign Keys"); SQLite's PRAGMA foreign_keys is per connection, a no-op inside a transaction
// (foreignkeys.html section 2).
std::string render_foreign_key_enforcement(bool on, Dialect d) {
  switch (d) {
    case Dialect::PostgreSql: return on ? "SET session_replication_role = origin" : "SET session_replication_role = replica";
    case Dialect::MySql: return on ? "SET SESSION foreign_key_checks = 1" : "SET SESSION foreign_key_checks = 0";
    case Dialect::Sqlite: return on ? "PRAGMA foreign_keys = ON" : "PRAGMA foreign_keys = OFF";
    case Dialect::Portable: break;
  }
  return {};
}

std::vector<std::string> render_cascade_log(const Table& t, Dialect d) {
  if (!t.cascade_log) return {};
  switch (d) {
    case Dialect::PostgreSql: return postgresql_cascade_log(t, *t.cascade_log);
    case Dialect::Sqlite: return sqlite_cascade_log(t, *t.cascade_log);
    case Dialect::Portable: return {};  // instrumentation: a scenario file or report shows the case without it
    case Dialect::MySql: break;
  }
  // MariaDB KB "Trigger Limitations": "Triggers are not activated by foreign key actions."
  throw std::invalid_argument("table " + t.name + ": MariaDB and MySQL fire no trigger for a foreign key's writes");
}

std::string render_set_writer(int writer, Dialect d) {
  switch (d) {
    case Dialect::PostgreSql: return fmt::format("SET txprop.writer = '{}'", writer);
    case Dialect::Sqlite: return fmt::format("SELECT txp_set_writer('{}')", writer);
    case Dialect::MySql: return fmt::format("SET @txp_writer = '{}'", writer);
    case Dialect::Portable: return {};
  }
  return {};
}

std::string render_insert_rows(const Table& t, Dialect d) {
  if (t.rows.empty()) return {};
  Statement insert;
  insert.kind = StatementKind::Insert;
  insert.table = t.name;
  insert.columns = t.column_names();
  for (const Row& row : t.rows) {
    std::vector<Expr> values;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const Value& v = row[i];
      const bool boolean = i < t.columns.size() && t.columns[i].type == ColumnType::Boolean && v.type() == ValueType::Integer;
      values.push_back(boolean ? Expr::boolean(v.as_int() != 0) : Expr::lit(v));
    }
    insert.values.push_back(std::move(values));
  }
  return render(insert, d);
}

std::string render_set_isolation(IsolationLevel level, Dialect d) {
  switch (d) {
    case Dialect::PostgreSql: return "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + sql_name(level);
    case Dialect::MySql: return "SET SESSION TRANSACTION ISOLATION LEVEL " + sql_name(level);
    case Dialect::Portable: return "SET ISOLATION LEVEL " + sql_name(level);
    case Dialect::Sqlite: return {};
  }
  return {};
}

std::ostream& operator<<(std::ostream& os, const Statement& s) { return os << render(s, Dialect::Portable); }
std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << render(e, Dialect::Portable); }

std::ostream& operator<<(std::ostream& os, const Schema& s) {
  for (const auto& line : render_setup(s, Dialect::Portable)) os << line << ";\n";
  return os;
}

std::string describe(const TestCase& c, Dialect d) {
  std::string out;
  for (const auto& line : render_setup(c.schema, d)) out += line + ";\n";
  // Where connections run several transactions, each transaction says which connection (C0, C1, ...) it is on.
  const bool shared = c.has_shared_sessions();
  const std::vector<int> connection = c.connection_of();
  for (std::size_t i = 0; i < c.transactions.size(); ++i) {
    const Transaction& t = c.transactions[i];
    std::string on = shared ? fmt::format(" on connection C{}", connection[i]) : "";
    if (t.node >= 0) on += fmt::format(" on node {}", t.node + 1);  // a cluster's node, 1-based as in scenario files
    if (t.autocommit)
      out += fmt::format("-- T{}{} at {}: {} autocommit statement(s)\n", i, on, sql_name(t.isolation),
                         t.statements.size());
    else
      out += fmt::format("-- T{}{} at {}: {} statement(s), then {}\n", i, on, sql_name(t.isolation),
                         t.statements.size(), to_string(t.end));
  }
  out += "-- submitted order:\n";
  int n = 0;
  for (const StepRef& ref : c.submitted_steps()) {
    const Transaction& t = c.transactions[static_cast<std::size_t>(ref.txn)];
    const Statement step = t.step(static_cast<std::size_t>(ref.index));
    ++n;
    if (t.autocommit && step.is_transaction_control()) continue;  // not sent
    out += fmt::format("{:>4}  T{}  {};\n", n, ref.txn, render(step, d));
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const TestCase& c) { return os << "\n" << describe(c); }

}  // namespace txprop
