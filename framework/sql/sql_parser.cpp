// The portable SQL parser. Its grammar mirrors framework/sql/render.cpp so that parsing what the renderer prints
// gives back the same tree: the same binding strengths (OR < AND < NOT < comparison, IS, IN, BETWEEN < || < + - < *
// < unary minus), left-associative arithmetic and logic, non-associative comparisons (the renderer parenthesises
// equal-strength comparison operands, and PostgreSQL rejects a = b = c too).
#include "txprop/sql_parser.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>


namespace txprop {

SyntaxError::SyntaxError(const std::string& path, int line, const std::string& message)
    : std::runtime_error(line > 0 ? fmt::format("{}:{}: {}", path, line, message)
                                  : fmt::format("{}: {}", path, message)),
      path_(path),
      line_(line) {}

namespace {

struct Token {
  enum class Kind { Word, QuotedIdentifier, Number, String, Symbol, End };
  Kind kind = Kind::End;
  std::string text;  // words, numbers and symbols as written; quoted identifiers and strings unescaped
  int line = 0;
};

bool is_word_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::vector<Token> tokenize(std::string_view s, const std::string& path, int line) {
  std::vector<Token> out;
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    // Comments: '#' as in scenario files and MySQL, '--' as in SQL (the renderer never prints "--" outside strings).
    if (c == '#' || (c == '-' && i + 1 < n && s[i + 1] == '-')) {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    std::size_t j = i;
    if (is_word_start(c)) {
      while (j < n && is_word_char(s[j])) ++j;
      out.push_back({Token::Kind::Word, std::string(s.substr(i, j - i)), line});
    } else if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(s[i + 1]))) {
      while (j < n && is_digit(s[j])) ++j;
      if (j < n && s[j] == '.') {
        ++j;
        while (j < n && is_digit(s[j])) ++j;
      }
      if (j < n && (s[j] == 'e' || s[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < n && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < n && is_digit(s[k])) {
          while (k < n && is_digit(s[k])) ++k;
          j = k;
        }
      }
      out.push_back({Token::Kind::Number, std::string(s.substr(i, j - i)), line});
    } else if (c == '\'' || c == '"' || c == '`') {
      // A doubled quote character stands for itself, in strings and quoted identifiers alike.
      const int start_line = line;
      std::string text;
      bool closed = false;
      for (j = i + 1; j < n; ++j) {
        if (s[j] == c) {
          if (j + 1 < n && s[j + 1] == c) {
            text += c;
            ++j;
            continue;
          }
          closed = true;
          ++j;
          break;
        }
        if (s[j] == '\n') ++line;
        text += s[j];
      }
      if (!closed)
        throw SyntaxError(path, start_line,
                            c == '\'' ? "unterminated string literal (missing closing ')"
                                      : fmt::format("unterminated quoted identifier (missing closing {})", c));
      out.push_back({c == '\'' ? Token::Kind::String : Token::Kind::QuotedIdentifier, std::move(text), start_line});
    } else {
      static constexpr std::string_view two_char[] = {"<>", "!=", "<=", ">=", "||"};
      static constexpr std::string_view one_char = "(),;*+-=<>.%";
      const std::string_view rest = s.substr(i);
      std::size_t len = 0;
      for (auto sym : two_char)
        if (rest.starts_with(sym)) len = 2;
      if (rest.starts_with("<=>")) len = 3;  // MariaDB's NULL-safe equality
      if (len == 0 && one_char.find(c) != std::string_view::npos) len = 1;
      if (len == 0) throw SyntaxError(path, line, fmt::format("unexpected character '{}'", c));
      out.push_back({Token::Kind::Symbol, std::string(rest.substr(0, len)), line});
      j = i + len;
    }
    i = j;
  }
  out.push_back({Token::Kind::End, "", line});
  return out;
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case Token::Kind::End: return "end of input";
    case Token::Kind::String: return fmt::format("string '{}'", t.text);
    case Token::Kind::QuotedIdentifier: return fmt::format("\"{}\"", t.text);
    default: return fmt::format("'{}'", t.text);
  }
}

// Words that end or structure a clause, so they cannot be bare column or table names ("SELECT FROM t" must not
// select a column named FROM). Quote them to use them as names.
bool is_reserved(std::string_view word) {
  static constexpr std::string_view reserved[] = {"SELECT", "FROM", "WHERE",   "AND",     "OR",       "NOT",
                                                  "IN",     "IS",   "NULL",    "BETWEEN", "SET",      "VALUES",
                                                  "FOR",    "ON",   "PRIMARY", "UNIQUE",  "RETURNING",
                                                  "EXISTS", "CASE", "WHEN",    "THEN",    "ELSE",     "END",
                                                  "GROUP",  "BY",   "HAVING",  "ORDER",   "LIMIT",    "ASC",
                                                  "DESC",   "JOIN", "INNER",   "LEFT",    "OUTER",
                                                  "USING",  "AS"};
  for (auto r : reserved)
    if (iequals(word, r)) return true;
  return false;
}

class Parser {
 public:
  Parser(std::string_view text, std::string path, int line)
      : path_(std::move(path)), tokens_(tokenize(text, path_, line)) {}

  bool at_end() const { return peek().kind == Token::Kind::End; }
  int line() const { return peek().line; }
  bool accept_symbol(std::string_view symbol) {
    if (!is_symbol(symbol)) return false;
    ++pos_;
    return true;
  }

  // Throws "expected <what>, found <next token>". A missing token is reported on the line of the token before it
  // when the next one is on a later line (or there is none): that is where the text stops short.
  [[noreturn]] void fail_expected(std::string_view what) const {
    const Token& t = peek();
    const bool previous_line = pos_ > 0 && (t.kind == Token::Kind::End || t.line > tokens_[pos_ - 1].line);
    fail(previous_line ? tokens_[pos_ - 1].line : t.line, fmt::format("expected {}, found {}", what, describe(t)));
  }
  [[noreturn]] void fail(int line, const std::string& message) const { throw SyntaxError(path_, line, message); }

  Statement statement() {
    operators_ = 0;
    if (accept_keyword("SELECT")) return select();
    if (accept_keyword("INSERT")) return insert();
    if (accept_keyword("REPLACE")) return insert(Upsert::Replace);
    if (accept_keyword("UPDATE")) return update();
    if (accept_keyword("DELETE")) return delete_();
    if (accept_keyword("MERGE")) return merge();
    if (accept_keyword("BEGIN")) {
      if (!accept_keyword("TRANSACTION")) accept_keyword("WORK");
      return Statement::begin();
    }
    if (accept_keyword("START")) {
      expect_keyword("TRANSACTION");
      return Statement::begin();
    }
    if (accept_keyword("COMMIT") || accept_keyword("END")) {
      if (!accept_keyword("WORK")) accept_keyword("TRANSACTION");
      return chained(Statement::commit());
    }
    if (accept_keyword("ROLLBACK") || accept_keyword("ABORT")) {
      if (!accept_keyword("WORK")) accept_keyword("TRANSACTION");
      if (!accept_keyword("TO")) return chained(Statement::rollback());
      accept_keyword("SAVEPOINT");  // optional in every engine's grammar
      return Statement::savepoint_statement(StatementKind::RollbackToSavepoint, identifier("a savepoint name"));
    }
    if (accept_keyword("SAVEPOINT"))
      return Statement::savepoint_statement(StatementKind::Savepoint, identifier("a savepoint name"));
    if (accept_keyword("RELEASE")) {
      accept_keyword("SAVEPOINT");
      return Statement::savepoint_statement(StatementKind::ReleaseSavepoint, identifier("a savepoint name"));
    }
    if (accept_keyword("LOCK")) return lock_table();
    if (is_keyword("CREATE")) fail(line(), "CREATE TABLE and CREATE INDEX belong in the setup section");
    fail_expected("a statement (SELECT, INSERT, UPDATE, DELETE, MERGE, BEGIN, START TRANSACTION, COMMIT, ROLLBACK or LOCK TABLE)");
  }

  std::variant<Table, CreateIndex, Statement> setup_statement() {
    operators_ = 0;
    if (!accept_keyword("CREATE")) return statement();
    const bool unique = accept_keyword("UNIQUE");
    if (accept_keyword("INDEX")) return create_index(unique);
    if (unique) fail_expected("INDEX after CREATE UNIQUE");
    if (!accept_keyword("TABLE")) fail_expected("TABLE or INDEX after CREATE");
    return create_table();
  }

  Expr expression() { return or_expr(); }

 private:
  const Token& peek(std::size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  const Token& next() {
    const Token& t = peek();
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool is_symbol(std::string_view symbol, std::size_t ahead = 0) const {
    return peek(ahead).kind == Token::Kind::Symbol && peek(ahead).text == symbol;
  }
  bool is_keyword(std::string_view keyword, std::size_t ahead = 0) const {
    return peek(ahead).kind == Token::Kind::Word && iequals(peek(ahead).text, keyword);
  }
  bool accept_keyword(std::string_view keyword) {
    if (!is_keyword(keyword)) return false;
    ++pos_;
    return true;
  }
  void expect_keyword(std::string_view keyword) {
    if (!accept_keyword(keyword)) fail_expected(keyword);
  }
  void expect_symbol(std::string_view symbol) {
    if (!accept_symbol(symbol)) fail_expected(fmt::format("'{}'", symbol));
  }

  std::string identifier(std::string_view what) {
    const Token& t = peek();
    if (t.kind == Token::Kind::QuotedIdentifier || (t.kind == Token::Kind::Word && !is_reserved(t.text)))
      return next().text;
    fail_expected(what);
  }

  std::vector<std::string> column_list() {
    expect_symbol("(");
    std::vector<std::string> out;
    do {
      out.push_back(identifier("a column name"));
    } while (accept_symbol(","));
    expect_symbol(")");
    return out;
  }

  // A scalar subquery in a SELECT list: "(SELECT ...)", or a string literal; the renderer prints them after the
  // columns or *.
  bool select_subquery_ahead() const { return is_symbol("(") && is_keyword("SELECT", 1); }
  void select_subqueries(Statement& s) {
    do {
      if (peek().kind == Token::Kind::String) {
        s.select_exprs.push_back(Expr::lit(Value(next().text)));
        continue;
      }
      if (!select_subquery_ahead())
        fail_expected("a scalar subquery (SELECT ...) or a string literal (they come last in the select list)");
      next();
      next();
      Nest nest(*this);
      s.select_exprs.push_back(scalar_subquery());
    } while (accept_symbol(","));
  }

  Statement select() {
    Statement s;
    s.kind = StatementKind::Select;
    std::string own_star;  // SELECT t.* FROM t JOIN u (a derived table's join)
    const int list_line = line();
    if (accept_symbol("*")) {
      if (accept_symbol(",")) select_subqueries(s);
    } else if ((peek().kind == Token::Kind::Word || peek().kind == Token::Kind::QuotedIdentifier) && is_symbol(".", 1) &&
               is_symbol("*", 2)) {
      own_star = identifier("a table name");
      next();
      next();
      s.own_columns = true;
    } else if (select_subquery_ahead()) {
      select_subqueries(s);
    } else {
      bool aggregates = false;
      std::vector<SelectItem> items;
      do {
        if (select_subquery_ahead()) {
          select_subqueries(s);
          break;
        }
        if (const Aggregate agg = aggregate_ahead(); agg != Aggregate::None) {
          next();
          next();
          if (agg == Aggregate::Count && accept_symbol("*")) items.push_back(SelectItem{agg, "*", {}});
          else items.push_back(SelectItem{agg, identifier("a column name"), {}});
          expect_symbol(")");
          if (accept_keyword("AS")) items.back().alias = identifier("a name for the aggregate after AS");
          aggregates = true;
        } else {
          items.push_back(SelectItem{Aggregate::None, identifier("a column name or *"), {}});
        }
      } while (accept_symbol(","));
      if (aggregates) s.items = std::move(items);
      else
        for (auto& i : items) s.columns.push_back(std::move(i.column));
    }
    expect_keyword("FROM");
    if (accept_symbol("(")) {  // a derived table: (SELECT * FROM t ...) [AS] alias
      const int at = line();
      expect_keyword("SELECT");
      Nest nest(*this);
      Statement inner = select();
      expect_symbol(")");
      accept_keyword("AS");
      s.alias = identifier("an alias for the derived table");
      if (!inner.derived.empty() || (!inner.joins.empty() && !inner.own_columns))
        fail(at, "a derived table is SELECT * FROM t [WHERE ...] [ORDER BY ... LIMIT n], SELECT c, COUNT(*) AS n FROM t "
                 "[WHERE ...] GROUP BY c, or SELECT t.* FROM t JOIN u ON ... [WHERE ...]");
      s.table = inner.table;
      s.derived.push_back(std::move(inner));
    } else {
      s.table = identifier("a table name");
    }
    for (;;) {
      Join j;
      if (accept_keyword("LEFT")) {
        j.left = true;
        accept_keyword("OUTER");
      } else if (!accept_keyword("INNER") && !is_keyword("JOIN")) {
        break;
      }
      expect_keyword("JOIN");
      j.table = identifier("a table name");
      expect_keyword("ON");
      j.on = expression();
      s.joins.push_back(std::move(j));
    }
    if (!own_star.empty() && (own_star != s.table || s.joins.empty()))
      fail(list_line, fmt::format("SELECT {}.* names the FROM table's columns over a join (SELECT {}.* FROM {} JOIN ...)",
                                  own_star, s.table, s.table));
    if (accept_keyword("WHERE")) s.where = expression();
    if (accept_keyword("GROUP")) {
      expect_keyword("BY");
      do {
        s.group_by.push_back(identifier("a column name"));
      } while (accept_symbol(","));
    }
    if (accept_keyword("HAVING")) s.having = expression();
    if (accept_keyword("ORDER")) {
      expect_keyword("BY");
      do {
        OrderItem o{identifier("a column name"), false};
        if (accept_keyword("DESC")) o.descending = true;
        else accept_keyword("ASC");
        s.order_by.push_back(std::move(o));
      } while (accept_symbol(","));
    }
    if (accept_keyword("LIMIT")) {
      if (peek().kind != Token::Kind::Number) fail_expected("a row count after LIMIT");
      const Expr n = number(false);
      if (n.literal.type() != ValueType::Integer) fail(line(), "LIMIT needs an integer");
      s.limit = n.literal.as_int();
    }
    if (accept_keyword("FOR")) {
      if (accept_keyword("UPDATE")) s.lock = LockMode::Update;
      else if (accept_keyword("SHARE")) s.lock = LockMode::Share;
      else if (accept_keyword("NO")) {  // PostgreSQL: FOR NO KEY UPDATE
        expect_keyword("KEY");
        expect_keyword("UPDATE");
        s.lock = LockMode::NoKeyUpdate;
      } else if (accept_keyword("KEY")) {  // PostgreSQL: FOR KEY SHARE
        expect_keyword("SHARE");
        s.lock = LockMode::KeyShare;
      } else {
        fail_expected("UPDATE, SHARE, NO KEY UPDATE or KEY SHARE after FOR");
      }
      lock_wait(s);
    } else if (accept_keyword("LOCK")) {  // MySQL's spelling of FOR SHARE
      expect_keyword("IN");
      expect_keyword("SHARE");
      expect_keyword("MODE");
      s.lock = LockMode::Share;
      lock_wait(s);
    }
    return s;
  }

  // PostgreSQL: LOCK [TABLE] [ONLY] name [IN lockmode MODE] [NOWAIT]; ACCESS EXCLUSIVE without a mode (manual, LOCK).
  Statement lock_table() {
    Statement s;
    s.kind = StatementKind::LockTable;
    accept_keyword("TABLE");
    accept_keyword("ONLY");
    s.table = identifier("a table name");
    s.table_lock_mode = "ACCESS EXCLUSIVE";
    if (accept_keyword("IN")) {
      std::string mode;
      while (!is_keyword("MODE") && peek().kind == Token::Kind::Word) {
        if (!mode.empty()) mode += ' ';
        for (char ch : peek().text) mode += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        ++pos_;
      }
      const auto& modes = table_lock_modes();
      if (std::find(modes.begin(), modes.end(), mode) == modes.end()) {
        std::string known;
        for (const std::string& m : modes) known += (known.empty() ? "" : ", ") + m;
        fail(line(), fmt::format("unknown lock mode '{}' (one of: {})", mode, known));
      }
      expect_keyword("MODE");
      s.table_lock_mode = mode;
    }
    if (accept_keyword("NOWAIT")) s.lock_wait = LockWait::NoWait;
    return s;
  }

  // [NOWAIT | SKIP LOCKED] after a locking clause (PostgreSQL, MariaDB 10.6+).
  void lock_wait(Statement& s) {
    if (accept_keyword("NOWAIT")) {
      s.lock_wait = LockWait::NoWait;
    } else if (accept_keyword("SKIP")) {
      expect_keyword("LOCKED");
      s.lock_wait = LockWait::SkipLocked;
    }
  }

  // INSERT [IGNORE | OR IGNORE | OR REPLACE] INTO ..., or (after REPLACE) INTO ...; then an upsert clause.
  Statement insert(Upsert verb = Upsert::None) {
    Statement s;
    s.kind = StatementKind::Insert;
    if (verb == Upsert::None && accept_keyword("IGNORE")) verb = Upsert::Ignore;  // MariaDB
    else if (verb == Upsert::None && accept_keyword("OR")) {                       // SQLite
      if (accept_keyword("IGNORE")) verb = Upsert::Ignore;
      else if (accept_keyword("REPLACE")) verb = Upsert::Replace;
      else fail_expected("IGNORE or REPLACE after INSERT OR");
    }
    s.upsert = verb;
    expect_keyword("INTO");
    s.table = identifier("a table name");
    if (is_symbol("(")) s.columns = column_list();
    expect_keyword("VALUES");
    do {
      const int row_line = line();
      expect_symbol("(");
      std::vector<Expr> row;
      do {
        row.push_back(expression());
      } while (accept_symbol(","));
      expect_symbol(")");
      if (!s.columns.empty() && row.size() != s.columns.size())
        fail(row_line, fmt::format("a row of {} value(s) for {} column(s)", row.size(), s.columns.size()));
      s.values.push_back(std::move(row));
    } while (accept_symbol(","));
    if (is_keyword("ON")) upsert_clause(s);
    return s;
  }

  // ON CONFLICT [(k, ...)] DO NOTHING | DO UPDATE SET ... [WHERE ...] (PostgreSQL, SQLite), or ON DUPLICATE KEY
  // UPDATE ... (MariaDB). Inside, EXCLUDED.c and VALUES(c) name the proposed row's value.
  void upsert_clause(Statement& s) {
    const int at = line();
    expect_keyword("ON");
    if (s.upsert != Upsert::None)
      fail(at, fmt::format("{} cannot also have ON CONFLICT or ON DUPLICATE KEY UPDATE", upsert_form(s)));
    upsert_values_ = true;
    if (accept_keyword("DUPLICATE")) {
      expect_keyword("KEY");
      expect_keyword("UPDATE");
      s.upsert = Upsert::DoUpdate;
      assignments(s);
    } else {
      if (!accept_keyword("CONFLICT")) fail_expected("CONFLICT or DUPLICATE KEY UPDATE after ON");
      if (is_symbol("(")) s.conflict_target = column_list();
      expect_keyword("DO");
      if (accept_keyword("NOTHING")) {
        s.upsert = Upsert::DoNothing;
      } else {
        if (!accept_keyword("UPDATE")) fail_expected("NOTHING or UPDATE after DO");
        expect_keyword("SET");
        s.upsert = Upsert::DoUpdate;
        assignments(s);
        if (accept_keyword("WHERE")) s.where = expression();
      }
    }
    upsert_values_ = false;
  }

  // [AND [NO] CHAIN] after COMMIT or ROLLBACK (PostgreSQL 12+, MariaDB).
  Statement chained(Statement s) {
    if (!accept_keyword("AND")) return s;
    s.chain = !accept_keyword("NO");
    expect_keyword("CHAIN");
    return s;
  }

  // PostgreSQL 15's MERGE INTO t USING {u [[AS] s] | (VALUES (...), ...) AS s(c, ...)} ON condition, then WHEN clauses.
  Statement merge() {
    Statement s;
    s.kind = StatementKind::Merge;
    expect_keyword("INTO");
    s.table = identifier("a table name");
    if (is_keyword("AS")) fail(line(), "MERGE INTO t AS alias: txprop names the target by its table name (give the source an alias)");
    expect_keyword("USING");
    if (accept_symbol("(")) {
      if (!accept_keyword("VALUES")) fail_expected("VALUES (a MERGE source is a table or a VALUES list)");
      s.values = value_rows();
      expect_symbol(")");
      expect_keyword("AS");
      s.alias = identifier("the VALUES source's alias");
      s.columns = column_list();
    } else {
      s.merge_source = identifier("a table name or (VALUES ...)");
      if (accept_keyword("AS") || (peek().kind != Token::Kind::Symbol && !is_keyword("ON"))) s.alias = identifier("an alias");
    }
    expect_keyword("ON");
    s.merge_on = expression();
    while (accept_keyword("WHEN")) s.merge_whens.push_back(merge_when(s));
    if (s.merge_whens.empty()) fail_expected("WHEN [NOT] MATCHED");
    return s;
  }

  MergeWhen merge_when(const Statement& s) {
    MergeWhen w;
    w.matched = !accept_keyword("NOT");
    expect_keyword("MATCHED");
    if (accept_keyword("AND")) w.condition = expression();
    expect_keyword("THEN");
    if (accept_keyword("DO")) {
      expect_keyword("NOTHING");
      w.action = MergeAction::DoNothing;
    } else if (accept_keyword("DELETE")) {
      w.action = MergeAction::Delete;
    } else if (accept_keyword("UPDATE")) {
      expect_keyword("SET");
      Statement target;
      target.table = s.table;
      assignments(target);
      w.action = MergeAction::Update;
      w.assignments = std::move(target.assignments);
    } else if (accept_keyword("INSERT")) {
      w.action = MergeAction::Insert;
      if (is_symbol("(")) w.columns = column_list();
      const int at = line();
      expect_keyword("VALUES");
      std::vector<std::vector<Expr>> rows = value_rows();
      if (rows.size() != 1) fail(at, "MERGE ... THEN INSERT takes one row of VALUES");
      w.values = std::move(rows.front());
      if (w.columns.empty()) fail(at, "MERGE ... THEN INSERT names its columns: INSERT (c, ...) VALUES (...)");
      if (w.values.size() != w.columns.size())
        fail(at, fmt::format("a row of {} value(s) for {} column(s)", w.values.size(), w.columns.size()));
    } else {
      fail_expected("UPDATE SET, DELETE, INSERT or DO NOTHING after THEN");
    }
    return w;
  }

  // (e, ...), (e, ...) after VALUES.
  std::vector<std::vector<Expr>> value_rows() {
    std::vector<std::vector<Expr>> rows;
    do {
      expect_symbol("(");
      std::vector<Expr> row;
      do {
        row.push_back(expression());
      } while (accept_symbol(","));
      expect_symbol(")");
      rows.push_back(std::move(row));
    } while (accept_symbol(","));
    return rows;
  }

  // A multi-table write's join, MariaDB's spelling: [INNER] JOIN u ON condition.
  bool write_join(Statement& s) {
    if (!accept_keyword("INNER") && !is_keyword("JOIN")) return false;
    expect_keyword("JOIN");
    Join j;
    j.table = identifier("a table name");
    expect_keyword("ON");
    j.on = expression();
    s.joins.push_back(std::move(j));
    return true;
  }

  // PostgreSQL's spelling of the join: FROM u (UPDATE) or USING u (DELETE), then WHERE condition. The whole WHERE
  // becomes the join condition (an inner join means the same either way), so that printing it back gives the text.
  void from_join(Statement& s, std::string_view keyword) {
    Join j;
    j.table = identifier("a table name");
    if (accept_symbol(",")) fail(line(), fmt::format("{} ... {} joins one other table", to_string(s.kind), keyword));
    if (!accept_keyword("WHERE")) fail_expected(fmt::format("WHERE with the join condition after {} {}", keyword, j.table));
    j.on = expression();
    s.joins.push_back(std::move(j));
  }

  void returning(Statement& s) {
    if (!accept_keyword("RETURNING")) return;
    do {
      std::string column = identifier("a column name");
      // table.column, as printed for a multi-table write: the joined table's columns come after the written table's
      if (accept_symbol(".")) {
        const std::string table = std::move(column);
        column = identifier("a column name after '.'");
        if (!s.joins.empty() && table == s.joins.front().table && table != s.table) {
          s.returning_joined.push_back(std::move(column));
          continue;
        }
        if (table != s.table) fail(line(), fmt::format("RETURNING {}.{}: {} is not a table of the statement", table, column, table));
        if (!s.returning_joined.empty()) fail(line(), fmt::format("RETURNING {}.{}: the written table's columns come first", table, column));
      }
      s.returning.push_back(std::move(column));
    } while (accept_symbol(","));
  }

  // c = e, ... (an UPDATE's SET list, or an upsert's).
  void assignments(Statement& s) {
    do {
      Assignment a;
      a.column = identifier("a column name");
      if (accept_symbol(".")) {  // table.column (a multi-table UPDATE)
        a.table = std::move(a.column);
        a.column = identifier("a column name after '.'");
        if (a.table == s.table) a.table.clear();
      }
      expect_symbol("=");
      a.value = expression();
      s.assignments.push_back(std::move(a));
    } while (accept_symbol(","));
  }

  Statement update() {
    Statement s;
    s.kind = StatementKind::Update;
    s.table = identifier("a table name");
    const bool joined = write_join(s);
    expect_keyword("SET");
    assignments(s);
    if (!joined && accept_keyword("FROM")) from_join(s, "FROM");
    else if (accept_keyword("WHERE")) s.where = expression();
    returning(s);
    return s;
  }

  Statement delete_() {
    Statement s;
    s.kind = StatementKind::Delete;
    if (!is_keyword("FROM")) {  // DELETE t [, u] FROM t JOIN u ON ... (MariaDB's multi-table DELETE)
      const int at = line();
      const std::string target = identifier("FROM or the table to delete from");
      std::string second;  // DELETE t, u: the joined table's rows are deleted too
      if (accept_symbol(",")) {
        second = identifier("the second table to delete from");
        if (accept_symbol(",")) fail(at, "DELETE t, u FROM t JOIN u deletes from at most two tables");
      }
      expect_keyword("FROM");
      s.table = identifier("a table name");
      if (s.table != target) fail(at, fmt::format("DELETE {} FROM {}: the table deleted from must come first", target, s.table));
      if (!write_join(s)) fail_expected("JOIN after DELETE t FROM t");
      if (!second.empty()) {
        if (second != s.joins.front().table)
          fail(at, fmt::format("DELETE {}, {} FROM {} JOIN {}: the second table deleted from must be the joined table",
                               target, second, s.table, s.joins.front().table));
        s.joins.front().deleted = true;
      }
      if (accept_keyword("WHERE")) s.where = expression();
      returning(s);
      return s;
    }
    expect_keyword("FROM");
    s.table = identifier("a table name");
    if (accept_keyword("USING")) from_join(s, "USING");
    else if (accept_keyword("WHERE")) s.where = expression();
    returning(s);
    return s;
  }

  Table create_table() {
    Table t;
    t.name = identifier("a table name");
    std::vector<std::pair<int, std::vector<std::string>>> uniques;  // with their lines, checked below
    int primary_key_line = 0;
    auto set_primary_key = [&](int at, std::vector<std::string> columns) {
      if (!t.primary_key.empty()) fail(at, fmt::format("table {} has more than one PRIMARY KEY", t.name));
      t.primary_key = std::move(columns);
      primary_key_line = at;
    };
    expect_symbol("(");
    do {
      const int at = line();
      // CONSTRAINT name before a table constraint: the name is not kept (nothing txprop reports names it).
      if (accept_keyword("CONSTRAINT")) identifier("a constraint name");
      if (accept_keyword("PRIMARY")) {
        expect_keyword("KEY");
        set_primary_key(at, column_list());
      } else if (accept_keyword("UNIQUE")) {
        uniques.push_back({at, column_list()});
      } else if (accept_keyword("FOREIGN")) {
        expect_keyword("KEY");
        std::vector<std::string> columns = column_list();
        expect_keyword("REFERENCES");
        t.foreign_keys.push_back(references(std::move(columns)));
      } else {
        Column c;
        c.name = identifier("a column name, PRIMARY KEY, UNIQUE or FOREIGN KEY");
        if (t.find_column(c.name)) fail(at, fmt::format("column {} is declared twice in table {}", c.name, t.name));
        c.type = column_type();
        for (;;) {
          const int constraint_line = line();
          if (accept_keyword("NOT")) {
            expect_keyword("NULL");
            c.not_null = true;
          } else if (accept_keyword("NULL")) {
          } else if (accept_keyword("PRIMARY")) {
            expect_keyword("KEY");
            set_primary_key(constraint_line, {c.name});
            c.not_null = true;  // as render_create_table prints it back: "k INTEGER NOT NULL, PRIMARY KEY (k)"
          } else if (accept_keyword("UNIQUE")) {
            uniques.push_back({constraint_line, {c.name}});
          } else if (accept_keyword("REFERENCES")) {
            t.foreign_keys.push_back(references({c.name}));
          } else {
            break;
          }
        }
        t.columns.push_back(std::move(c));
      }
    } while (accept_symbol(","));
    expect_symbol(")");
    // MySQL's table options, as render_create_table prints them: ENGINE=InnoDB.
    while (accept_keyword("ENGINE")) {
      expect_symbol("=");
      identifier("a storage engine name");
    }

    auto check_columns = [&](int at, const std::vector<std::string>& columns, std::string_view what) {
      for (const auto& c : columns)
        if (!t.find_column(c)) fail(at, fmt::format("{} names column {}, which is not in table {}", what, c, t.name));
    };
    check_columns(primary_key_line, t.primary_key, "PRIMARY KEY");
    for (auto& [at, columns] : uniques) {
      check_columns(at, columns, "UNIQUE");
      // PostgreSQL's name for the index behind a UNIQUE constraint, so the name is stable and recognisable.
      std::string name = t.name;
      for (const auto& c : columns) name += "_" + c;
      t.indexes.push_back({name + "_key", std::move(columns), true});
    }
    return t;
  }

  // What follows REFERENCES: table [(columns)] [ON DELETE action] [ON UPDATE action] (either order), after FOREIGN
  // KEY (columns) or a column's type. Without a column list the referenced columns stay empty: the scenario reader makes them the
  // referenced table's primary key, as PostgreSQL does (https://www.postgresql.org/docs/15/sql-createtable.html).
  ForeignKey references(std::vector<std::string> columns) {
    ForeignKey fk;
    fk.columns = std::move(columns);
    fk.table = identifier("the referenced table's name");
    if (is_symbol("(")) fk.referenced = column_list();
    while (accept_keyword("ON")) {
      const bool on_delete = accept_keyword("DELETE");
      if (!on_delete && !accept_keyword("UPDATE")) fail_expected("DELETE or UPDATE after ON");
      (on_delete ? fk.on_delete : fk.on_update) = referential_action();
    }
    return fk;
  }

  ReferentialAction referential_action() {
    if (accept_keyword("CASCADE")) return ReferentialAction::Cascade;
    if (accept_keyword("RESTRICT")) return ReferentialAction::Restrict;
    if (accept_keyword("NO")) {
      expect_keyword("ACTION");
      return ReferentialAction::NoAction;
    }
    if (accept_keyword("SET")) {
      if (accept_keyword("NULL")) return ReferentialAction::SetNull;
      fail_expected("NULL after SET (SET DEFAULT is not supported: txprop's columns have no defaults)");
    }
    fail_expected("CASCADE, RESTRICT, NO ACTION or SET NULL");
  }

  // A CAST's type: the column types, and MariaDB's SIGNED [INTEGER] and CHAR.
  ValueType cast_type() {
    if (accept_keyword("SIGNED")) {
      accept_keyword("INTEGER");
      return ValueType::Integer;
    }
    switch (column_type()) {
      case ColumnType::Integer: return ValueType::Integer;
      case ColumnType::Real: return ValueType::Real;
      case ColumnType::Text: return ValueType::Text;
      case ColumnType::Boolean: fail(line(), "CAST to BOOLEAN is not supported (engines read its text differently)");
    }
    return ValueType::Text;
  }

  ColumnType column_type() {
    const Token& t = peek();
    if (t.kind != Token::Kind::Word) fail_expected("a column type");
    const int at = t.line;
    const std::string word = next().text;
    ColumnType type;
    if (iequals(word, "INTEGER") || iequals(word, "INT") || iequals(word, "BIGINT") || iequals(word, "SMALLINT")) {
      type = ColumnType::Integer;
    } else if (iequals(word, "REAL") || iequals(word, "FLOAT") || iequals(word, "NUMERIC") ||
               iequals(word, "DECIMAL")) {
      type = ColumnType::Real;
    } else if (iequals(word, "DOUBLE")) {
      accept_keyword("PRECISION");
      type = ColumnType::Real;
    } else if (iequals(word, "TEXT") || iequals(word, "VARCHAR") || iequals(word, "CHAR")) {
      type = ColumnType::Text;
    } else if (iequals(word, "BOOLEAN") || iequals(word, "BOOL")) {
      type = ColumnType::Boolean;
    } else {
      fail(at, fmt::format("unknown column type '{}' (use INTEGER, INT, BIGINT, SMALLINT, REAL, DOUBLE, FLOAT, "
                           "NUMERIC, DECIMAL, TEXT, VARCHAR(n), CHAR(n) or BOOLEAN)",
                           word));
    }
    // Length, precision and scale, e.g. VARCHAR(64), NUMERIC(10, 2): the model has no use for them.
    if (accept_symbol("(")) {
      do {
        if (peek().kind != Token::Kind::Number) fail_expected("a number");
        next();
      } while (accept_symbol(","));
      expect_symbol(")");
    }
    return type;
  }

  CreateIndex create_index(bool unique) {
    CreateIndex ci;
    ci.index.name = identifier("an index name");
    ci.index.unique = unique;
    expect_keyword("ON");
    ci.table = identifier("a table name");
    ci.index.columns = column_list();
    return ci;
  }

  // Limits that keep hostile input from exhausting the stack (here, and in whatever walks the tree later).
  static constexpr int kMaxNesting = 100;     // parentheses, subqueries, NOT and unary minus, nested
  static constexpr int kMaxOperators = 2000;  // binary operators in one statement (a chain is a deep tree too)
  struct Nest {
    Parser& p;
    explicit Nest(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxNesting)
        p.fail(p.line(), fmt::format("expression nested more than {} levels deep", kMaxNesting));
    }
    ~Nest() { --p.depth_; }
  };
  void count_operator() {
    if (++operators_ > kMaxOperators)
      fail(line(), fmt::format("statement has more than {} operators", kMaxOperators));
  }

  Expr or_expr() {
    Nest nest(*this);
    Expr e = and_expr();
    while (accept_keyword("OR")) {
      count_operator();
      e = Expr::binary(BinaryOp::Or, std::move(e), and_expr());
    }
    return e;
  }

  Expr and_expr() {
    Expr e = not_expr();
    while (accept_keyword("AND")) {
      count_operator();
      e = Expr::binary(BinaryOp::And, std::move(e), not_expr());
    }
    return e;
  }

  Expr not_expr() {
    if (is_keyword("NOT") && is_keyword("EXISTS", 1)) {
      next();
      next();
      Nest nest(*this);
      return exists(true);
    }
    if (accept_keyword("NOT")) {
      Nest nest(*this);
      return Expr::not_(not_expr());
    }
    return comparison();
  }

  // After "EXISTS": (SELECT 1 FROM table [WHERE e]).
  Expr exists(bool negated) {
    expect_symbol("(");
    expect_keyword("SELECT");
    if (peek().kind != Token::Kind::Number || peek().text != "1") fail_expected("1 (EXISTS (SELECT 1 FROM ...))");
    next();
    expect_keyword("FROM");
    std::string table = identifier("a table name");
    std::optional<Expr> where;
    if (accept_keyword("WHERE")) where = expression();
    expect_symbol(")");
    return Expr::exists(std::move(table), std::move(where), negated);
  }

  Expr comparison() {
    Expr lhs = concat();
    static constexpr std::pair<std::string_view, BinaryOp> ops[] = {
        {"=", BinaryOp::Eq},  {"<>", BinaryOp::Ne}, {"!=", BinaryOp::Ne}, {"<", BinaryOp::Lt},
        {"<=", BinaryOp::Le}, {">", BinaryOp::Gt},  {">=", BinaryOp::Ge}};
    for (auto [symbol, op] : ops)
      if (accept_symbol(symbol)) return Expr::binary(op, std::move(lhs), concat());
    if (accept_symbol("<=>")) return Expr::is_distinct(std::move(lhs), concat(), true);  // MariaDB's NULL-safe equality
    if (accept_keyword("IS")) {
      const bool negated = accept_keyword("NOT");
      if (accept_keyword("TRUE")) return Expr::is_truth(std::move(lhs), true, negated);
      if (accept_keyword("FALSE")) return Expr::is_truth(std::move(lhs), false, negated);
      if (accept_keyword("DISTINCT")) {
        expect_keyword("FROM");
        return Expr::is_distinct(std::move(lhs), concat(), negated);
      }
      if (!accept_keyword("NULL")) fail_expected("NULL, TRUE, FALSE or DISTINCT FROM after IS [NOT]");
      return Expr::is_null(std::move(lhs), negated);
    }
    bool negated = false;
    if (is_keyword("NOT") && (is_keyword("IN", 1) || is_keyword("BETWEEN", 1))) {
      next();
      negated = true;
    }
    if (accept_keyword("IN")) {
      expect_symbol("(");
      if (accept_keyword("SELECT")) {
        std::string column = identifier("the column the IN subquery selects");
        expect_keyword("FROM");
        std::string table = identifier("a table name");
        std::optional<Expr> where;
        if (accept_keyword("WHERE")) where = expression();
        expect_symbol(")");
        // The model has no NOT IN (SELECT ...); NOT around it means the same.
        Expr e = Expr::in_subquery(std::move(lhs), std::move(table), std::move(column), std::move(where));
        return negated ? Expr::not_(std::move(e)) : e;
      }
      std::vector<Expr> list;
      do {
        list.push_back(expression());
      } while (accept_symbol(","));
      expect_symbol(")");
      return Expr::in_list(std::move(lhs), std::move(list), negated);
    }
    if (accept_keyword("BETWEEN")) {
      Expr low = concat();
      expect_keyword("AND");
      Expr e = Expr::between(std::move(lhs), std::move(low), concat());
      return negated ? Expr::not_(std::move(e)) : e;
    }
    return lhs;
  }

  Expr concat() {
    Expr e = additive();
    while (accept_symbol("||")) {
      count_operator();
      e = Expr::binary(BinaryOp::Concat, std::move(e), additive());
    }
    return e;
  }

  Expr additive() {
    Expr e = multiplicative();
    for (;;) {
      if (is_symbol("+") || is_symbol("-")) count_operator();
      if (accept_symbol("+")) e = Expr::binary(BinaryOp::Add, std::move(e), multiplicative());
      else if (accept_symbol("-")) e = Expr::binary(BinaryOp::Sub, std::move(e), multiplicative());
      else return e;
    }
  }

  Expr multiplicative() {
    Expr e = unary();
    for (;;) {
      if (accept_symbol("*")) {
        count_operator();
        e = Expr::binary(BinaryOp::Mul, std::move(e), unary());
      } else if (accept_symbol("%")) {
        count_operator();
        e = Expr::binary(BinaryOp::Mod, std::move(e), unary());
      } else {
        return e;
      }
    }
  }

  // A minus directly before a number is part of the literal: the renderer prints Value(-3) as -3, and
  // Expr::neg(-3) as -(-3).
  Expr unary() {
    if (!accept_symbol("-")) return primary();
    if (peek().kind == Token::Kind::Number) return number(true);
    Nest nest(*this);
    return Expr::neg(unary());
  }

  Expr number(bool negative) {
    const Token& t = next();
    const std::string text = (negative ? "-" : "") + t.text;
    const char* first = text.data();
    const char* last = first + text.size();
    if (text.find_first_of(".eE") != std::string::npos) {
      double d = 0;
      auto [end, ec] = std::from_chars(first, last, d);
      if (ec != std::errc() || end != last) fail(t.line, fmt::format("bad number {}", text));
      return Expr::lit(Value(d));
    }
    std::int64_t i = 0;
    auto [end, ec] = std::from_chars(first, last, i);
    if (ec != std::errc() || end != last)
      fail(t.line, fmt::format("integer literal {} is out of range (64-bit integers)", text));
    return Expr::lit(Value(i));
  }

  Expr primary() {
    const Token& t = peek();
    switch (t.kind) {
      case Token::Kind::Number: return number(false);
      case Token::Kind::String: return Expr::lit(Value(next().text));
      case Token::Kind::QuotedIdentifier: return column_ref(next().text);
      case Token::Kind::Word:
        if (accept_keyword("NULL")) return Expr::lit(Value());
        if (upsert_values_ && is_keyword("VALUES") && is_symbol("(", 1)) {  // MariaDB's VALUES(c) in an upsert
          next();
          next();
          Expr e = Expr::excluded(identifier("a column name"));
          expect_symbol(")");
          return e;
        }
        if (accept_keyword("EXISTS")) return exists(false);
        if (accept_keyword("TRUE")) return Expr::boolean(true);
        if (accept_keyword("FALSE")) return Expr::boolean(false);
        if (is_keyword("CAST") && is_symbol("(", 1)) {  // CAST(e AS type), with the engines' type names
          next();
          next();
          Expr e = expression();
          expect_keyword("AS");
          const ValueType type = cast_type();
          expect_symbol(")");
          return Expr::cast(std::move(e), type);
        }
        if (is_keyword("IF") && is_symbol("(", 1)) {  // MariaDB's IF(c, a, b): CASE WHEN c THEN a ELSE b END
          next();
          next();
          Expr when = expression();
          expect_symbol(",");
          Expr then = expression();
          expect_symbol(",");
          Expr otherwise = expression();
          expect_symbol(")");
          return Expr::case_(std::move(when), std::move(then), std::move(otherwise));
        }
        if (const Aggregate agg = aggregate_ahead(); agg != Aggregate::None) {  // HAVING COUNT(c) > 1
          next();
          next();
          std::string column = identifier("a column name");
          expect_symbol(")");
          return Expr::aggregate_of(agg, std::move(column));
        }
        if (accept_keyword("CASE")) {
          expect_keyword("WHEN");
          Expr when = expression();
          expect_keyword("THEN");
          Expr then = expression();
          expect_keyword("ELSE");
          Expr otherwise = expression();
          expect_keyword("END");
          return Expr::case_(std::move(when), std::move(then), std::move(otherwise));
        }
        if (is_keyword("CONCAT") && is_symbol("(", 1)) {  // MySQL's spelling of ||
          next();
          next();
          Expr e = expression();
          expect_symbol(",");
          do {
            count_operator();
            e = Expr::binary(BinaryOp::Concat, std::move(e), expression());
          } while (accept_symbol(","));
          expect_symbol(")");
          return e;
        }
        if (!is_reserved(t.text)) return column_ref(next().text);
        break;
      case Token::Kind::Symbol:
        if (accept_symbol("(")) {
          if (accept_keyword("SELECT")) return scalar_subquery();
          Expr e = expression();
          expect_symbol(")");
          return e;
        }
        break;
      case Token::Kind::End: break;
    }
    fail_expected("an expression");
  }

  // MIN( MAX( COUNT( SUM( ahead: the aggregate, else None.
  Aggregate aggregate_ahead() const {
    static constexpr std::pair<std::string_view, Aggregate> aggregates[] = {
        {"MIN", Aggregate::Min}, {"MAX", Aggregate::Max}, {"COUNT", Aggregate::Count}, {"SUM", Aggregate::Sum}};
    for (auto [name, agg] : aggregates)
      if (is_keyword(name) && is_symbol("(", 1)) return agg;
    return Aggregate::None;
  }

  // A column name, or table.column.
  Expr column_ref(std::string first) {
    if (!accept_symbol(".")) return Expr::col(std::move(first));
    if (upsert_values_ && iequals(first, "excluded")) return Expr::excluded(identifier("a column name after EXCLUDED."));
    return Expr::qcol(std::move(first), identifier("a column name after '.'"));
  }

  // After "(SELECT": aggregate(column) or column, FROM table [WHERE e], ")".
  Expr scalar_subquery() {
    Aggregate aggregate = Aggregate::None;
    static constexpr std::pair<std::string_view, Aggregate> aggregates[] = {
        {"MIN", Aggregate::Min}, {"MAX", Aggregate::Max}, {"COUNT", Aggregate::Count}, {"SUM", Aggregate::Sum}};
    for (auto [name, agg] : aggregates)
      if (is_keyword(name) && is_symbol("(", 1)) aggregate = agg;
    std::string column;
    if (aggregate != Aggregate::None) {
      next();
      next();
      if (is_symbol("*")) fail(line(), "COUNT(*) is not supported in subqueries; count a column, e.g. COUNT(k)");
      column = identifier("a column name");
      expect_symbol(")");
    } else {
      column = identifier("MIN(column), MAX(column), COUNT(column) or a column name");
    }
    expect_keyword("FROM");
    std::string table = identifier("a table name");
    std::optional<Expr> where;
    if (accept_keyword("WHERE")) where = expression();
    expect_symbol(")");
    return Expr::subquery(aggregate, std::move(table), std::move(column), std::move(where));
  }

  std::string path_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  int operators_ = 0;
  bool upsert_values_ = false;  // inside an upsert's clause: EXCLUDED.c and VALUES(c) are the proposed values
};

}  // namespace

std::vector<SetupStatement> parse_setup(std::string_view text, const std::string& path, int first_line) {
  Parser p(text, path, first_line);
  std::vector<SetupStatement> out;
  for (;;) {
    while (p.accept_symbol(";")) {
    }
    if (p.at_end()) return out;
    const int line = p.line();
    out.push_back({line, p.setup_statement()});
    if (!p.accept_symbol(";") && !p.at_end()) p.fail_expected("';' at the end of the statement");
  }
}

Statement parse_statement(std::string_view sql, const std::string& path, int line) {
  Parser p(sql, path, line);
  Statement s = p.statement();
  p.accept_symbol(";");
  if (!p.at_end()) p.fail_expected("the end of the statement");
  return s;
}

Expr parse_expression(std::string_view sql, const std::string& path, int line) {
  Parser p(sql, path, line);
  Expr e = p.expression();
  if (!p.at_end()) p.fail_expected("the end of the expression");
  return e;
}

}  // namespace txprop
