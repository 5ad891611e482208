// Scenario files: reading (with errors that name the file, the line and what was expected), writing, and the
// bridge to TestCase. The format is documented in include/txprop/scenario.hpp.
#include "txprop/scenario.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "txprop/sql_parser.hpp"
#include "txprop/sql.hpp"

namespace txprop {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
  return out;
}

// An expectation's target parameters as written after its kind: "[name=value,...]", "" for none.
std::string params_text(const std::map<std::string, std::string>& params) {
  std::vector<std::string> items;
  for (const auto& [name, value] : params) items.push_back(name + "=" + value);
  return items.empty() ? std::string() : "[" + join(items, ",") + "]";
}

// Splits on any of `separators`, dropping empty pieces.
std::vector<std::string> split(std::string_view s, std::string_view separators) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t j = std::min(s.find_first_of(separators, i), s.size());
    if (auto piece = trim(s.substr(i, j - i)); !piece.empty()) out.emplace_back(piece);
    i = j + 1;
  }
  return out;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// "read committed" as scenario files spell levels.
std::string level_text(IsolationLevel level) { return lower(sql_name(level)); }

// A literal of a setup INSERT: a literal, or minus a numeric literal.
std::optional<Value> literal_value(const Expr& e) {
  if (e.kind == Expr::Kind::Literal) return e.literal;
  if (e.kind == Expr::Kind::Boolean) return Value(e.truth ? 1 : 0);  // as the engines read TRUE / FALSE back
  if (e.kind == Expr::Kind::Neg && e.args[0].kind == Expr::Kind::Literal) {
    const Value& v = e.args[0].literal;
    if (v.type() == ValueType::Real) return Value(-v.as_real());
    if (v.type() == ValueType::Integer && v.as_int() != std::numeric_limits<std::int64_t>::min())
      return Value(-v.as_int());
  }
  return std::nullopt;
}

// Transaction names from session names: a session's only transaction is called like the session (so every file
// written before sessions could hold several keeps its names); the k-th of several is "<session>[k]". Transactions
// alone on their connection get session -1, the others the index of their connection, as TestCase::sessions() counts.
void name_transactions(Scenario& s) {
  std::vector<std::vector<int>> of(s.session_names.size());
  for (std::size_t t = 0; t < s.transactions.size(); ++t)
    of[static_cast<std::size_t>(s.transactions[t].session)].push_back(static_cast<int>(t));
  s.transaction_names.assign(s.transactions.size(), "");
  for (std::size_t k = 0; k < of.size(); ++k)
    for (std::size_t j = 0; j < of[k].size(); ++j) {
      const auto t = static_cast<std::size_t>(of[k][j]);
      s.transaction_names[t] = of[k].size() == 1 ? s.session_names[k] : fmt::format("{}[{}]", s.session_names[k], j + 1);
      s.transactions[t].session = of[k].size() == 1 ? -1 : static_cast<int>(k);
    }
}

struct Line {
  int number = 0;
  std::string_view text;
};

// A section: the lines after its "name:" line up to the next section.
struct Section {
  int header_line = 0;
  std::vector<Line> lines;
  // The lines as one text (for SQL that spans lines); it starts on lines.front().number.
  std::string text() const {
    std::string out;
    for (const auto& l : lines) out += std::string(l.text) + "\n";
    return out;
  }
};

class Reader {
 public:
  Reader(std::string_view text, const std::string& path, const ScenarioVocabulary& vocabulary)
      : path_(path), vocabulary_(vocabulary) {
    s_.path = path;
    int number = 0;
    std::size_t start = 0;
    // The newline that ends the last line does not start another one.
    if (text.ends_with('\n')) text.remove_suffix(1);
    while (start <= text.size()) {
      std::size_t end = std::min(text.find('\n', start), text.size());
      std::string_view l = text.substr(start, end - start);
      if (l.ends_with('\r')) l.remove_suffix(1);
      lines_.push_back({++number, l});
      start = end + 1;
    }
  }

  Scenario read() {
    split_sections();
    read_header();
    if (!setup_) fail(last_line(), "missing 'setup:' section (the SQL that creates the tables and rows)");
    if (!steps_) fail(last_line(), "missing 'steps:' section (lines '<session>: <statement>;')");
    read_setup();
    read_steps();
    resolve_fixed_levels();
    resolve_nodes();
    if (expect_) read_expect();
    // Everything was checked step by step; this is a safety net for what the per-step checks cannot see.
    if (auto err = s_.test_case(IsolationLevel::Serializable).validate(); !err.empty()) fail(steps_->header_line, err);
    return std::move(s_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& message) const { throw ScenarioError(path_, line, message); }
  int last_line() const { return lines_.back().number; }

  void split_sections() {
    std::vector<Line>* current = &header_;
    for (const Line& l : lines_) {
      const std::string t = lower(trim(l.text));
      std::optional<Section>* section = t == "setup:"    ? &setup_
                                        : t == "steps:"  ? &steps_
                                        : t == "expect:" ? &expect_
                                                         : nullptr;
      if (!section) {
        current->push_back(l);
        continue;
      }
      if (*section)
        fail(l.number, fmt::format("duplicate section '{}' (first on line {})", t, (*section)->header_line));
      section->emplace();
      (*section)->header_line = l.number;
      current = &(*section)->lines;
    }
  }

  void read_header() {
    std::map<std::string, int> seen;  // field -> line
    for (const Line& l : header_) {
      const std::string_view t = trim(l.text);
      if (t.empty() || t.starts_with('#')) continue;
      const auto colon = t.find(':');
      if (colon == std::string_view::npos)
        fail(l.number, fmt::format("expected a header field 'name: value' or a section (setup:, steps:, expect:), "
                                   "found '{}'",
                                   t));
      const std::string key = lower(trim(t.substr(0, colon)));
      const std::string_view value = trim(t.substr(colon + 1));
      std::string field = key;
      std::string txn;
      if (key == "level" || key.starts_with("level ")) {
        txn = std::string(trim(trim(t.substr(0, colon)).substr(5)));
        const std::string session = txn.substr(0, std::min(txn.find('['), txn.size()));
        if (!is_identifier(session))
          fail(l.number, fmt::format("expected 'level <session or transaction>: <level>', e.g. 'level T1: read "
                                     "committed' or 'level s1[2]: serializable', found '{}'",
                                     t));
        field = "level " + txn;
      } else if (key.starts_with("node ")) {
        txn = std::string(trim(trim(t.substr(0, colon)).substr(4)));
        if (!is_identifier(txn))
          fail(l.number, fmt::format("expected 'node <session>: <node number from 1>', e.g. 'node s2: 2', found '{}'", t));
        field = "node " + txn;
      } else if (key != "name" && key != "source" && key != "link" && key != "applies" && key != "levels" &&
                 key != "versions") {
        fail(l.number, fmt::format("unknown header field '{}' (known: name, source, link, applies, levels, versions, "
                                   "level <transaction>, node <session>)",
                                   key));
      }
      if (auto [it, fresh] = seen.emplace(field, l.number); !fresh)
        fail(l.number, fmt::format("duplicate header field '{}' (first on line {})", field, it->second));
      if (value.empty()) fail(l.number, fmt::format("header field '{}' has no value", field));

      if (key == "name") s_.name = value;
      else if (key == "source") s_.source = value;
      else if (key == "link") s_.link = value;
      else if (key == "applies") {
        for (auto& kind : split(value, ", \t")) {
          check_target_kind(l.number, kind);
          s_.applies.push_back(std::move(kind));
        }
      } else if (key == "levels") {
        for (const auto& item : split(value, ",")) s_.levels.push_back(level(l.number, item));
      } else if (key.starts_with("node ")) {
        const std::string digits(value);
        if (digits.size() > 3 || !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) ||
            std::stoi(digits) < 1)
          fail(l.number, fmt::format("node for {} must be a node number from 1, found '{}'", txn, value));
        nodes_.push_back({l.number, txn, std::stoi(digits) - 1});
      } else if (key == "versions") {
        s_.versions_text = value;
        for (const auto& item : split(value, ",")) s_.versions.push_back(version_range(l.number, item));
      } else {
        fixed_levels_.push_back({l.number, txn, level(l.number, value)});
      }
    }
  }

  IsolationLevel level(int line, std::string_view text) const {
    if (auto level = parse_isolation_level(text)) return *level;
    fail(line, fmt::format("unknown isolation level '{}' (use read uncommitted, read committed, repeatable read, "
                           "serializable)",
                           text));
  }

  // 'A-B', 'A-', '-B', 'MAJOR.MINOR' or 'MAJOR' (scenario.hpp).
  VersionRange version_range(int line, std::string_view text) const {
    const std::string item(trim(text));
    auto version = [&](const std::string& v, bool upper) {
      static const std::regex form(R"(([0-9]{1,3})(?:\.([0-9]{1,4}))?)");
      std::smatch m;
      if (!std::regex_match(v, m, form))
        fail(line, fmt::format("bad version '{}' in '{}' (write MAJOR.MINOR, e.g. versions: 12.0-15.17, 16)", v, item));
      const int major = std::stoi(m[1].str()) * 10000;
      return m[2].matched ? major + std::stoi(m[2].str()) : upper ? major + 9999 : major;
    };
    const auto dash = item.find('-');
    if (dash == std::string::npos) return {version(item, false), version(item, true)};
    const std::string a = std::string(trim(std::string_view(item).substr(0, dash)));
    const std::string b = std::string(trim(std::string_view(item).substr(dash + 1)));
    if (a.empty() && b.empty()) fail(line, "bad version range '-' (write e.g. 12.0-15.17)");
    const VersionRange r{a.empty() ? 0 : version(a, false), b.empty() ? std::numeric_limits<int>::max() : version(b, true)};
    if (r.from > r.to) fail(line, fmt::format("version range '{}' starts after it ends", item));
    return r;
  }

  void check_target_kind(int line, const std::string& kind) const {
    const auto& known = vocabulary_.target_kinds;
    if (!is_identifier(kind) || (!known.empty() && std::find(known.begin(), known.end(), kind) == known.end()))
      fail(line, fmt::format("unknown target kind '{}' (known: {})", kind, join(known, ", ")));
  }

  void check_expectation(int line, const Expectation& e) const {
    if (vocabulary_.findings.empty()) return;
    const auto it = vocabulary_.findings.find(e.property);
    if (it == vocabulary_.findings.end()) {
      std::vector<std::string> names;
      for (const auto& [name, kinds] : vocabulary_.findings) names.push_back(name);
      fail(line, fmt::format("unknown property '{}' (known: {})", e.property, join(names, ", ")));
    }
    if (e.verdict != "ok" && e.verdict != "no-verdict" &&
        std::find(it->second.begin(), it->second.end(), e.verdict) == it->second.end())
      fail(line, fmt::format("unknown verdict '{}' for {} (use ok, no-verdict or a finding kind: {})", e.verdict, e.property,
                             join(it->second, ", ")));
  }

  void read_setup() {
    if (setup_->lines.empty()) return;
    Schema& schema = s_.schema;
    for (auto& st : parse_setup(setup_->text(), path_, setup_->lines.front().number)) {
      if (auto* table = std::get_if<Table>(&st.what)) {
        if (schema.find_table(table->name)) fail(st.line, fmt::format("table {} is created twice", table->name));
        for (const auto& index : table->indexes) check_index_name(st.line, index.name);
        resolve_foreign_keys(st.line, *table);
        schema.tables.push_back(std::move(*table));
        if (auto err = schema.check_foreign_keys(); !err.empty()) fail(st.line, err);
      } else if (auto* ci = std::get_if<CreateIndex>(&st.what)) {
        Table* table = schema.find_table(ci->table);
        if (!table) fail(st.line, fmt::format("CREATE INDEX {} on unknown table {}", ci->index.name, ci->table));
        for (const auto& c : ci->index.columns)
          if (!table->find_column(c))
            fail(st.line,
                 fmt::format("index {} names column {}, which is not in table {}", ci->index.name, c, table->name));
        check_index_name(st.line, ci->index.name);
        table->indexes.push_back(std::move(ci->index));
      } else {
        add_rows(st.line, std::get<Statement>(st.what));
        if (auto err = schema.check_foreign_keys(); !err.empty()) fail(st.line, err);
      }
    }
  }

  // REFERENCES t without a column list references t's primary key (PostgreSQL's rule; MariaDB needs the list).
  void resolve_foreign_keys(int line, Table& table) const {
    for (ForeignKey& fk : table.foreign_keys) {
      if (!fk.referenced.empty()) continue;
      const Table* parent = fk.table == table.name ? &table : s_.schema.find_table(fk.table);
      if (!parent) fail(line, fmt::format("table {} references unknown table {}", table.name, fk.table));
      if (parent->primary_key.empty())
        fail(line, fmt::format("table {} references {} without naming columns, and {} has no primary key", table.name,
                               fk.table, fk.table));
      fk.referenced = parent->primary_key;
    }
  }

  void check_index_name(int line, const std::string& name) const {
    for (const auto& t : s_.schema.tables)
      for (const auto& i : t.indexes)
        if (i.name == name) fail(line, fmt::format("index name {} is used twice", name));
  }

  void add_rows(int line, Statement& insert) {
    if (insert.kind != StatementKind::Insert)
      fail(line, fmt::format("the setup section holds CREATE TABLE, CREATE INDEX and INSERT, found {}",
                             to_string(insert.kind)));
    Table* table = s_.schema.find_table(insert.table);
    if (!table) fail(line, fmt::format("INSERT into unknown table {}", insert.table));
    if (insert.columns.empty()) insert.columns = table->column_names();
    std::vector<std::size_t> positions;
    for (const auto& c : insert.columns) {
      auto position = table->column_index(c);
      if (!position) fail(line, fmt::format("column {} is not in table {}", c, table->name));
      if (std::find(positions.begin(), positions.end(), *position) != positions.end())
        fail(line, fmt::format("column {} is listed twice", c));
      positions.push_back(*position);
    }
    for (const auto& values : insert.values) {
      if (values.size() != positions.size())
        fail(line, fmt::format("a row of {} value(s) for {} column(s)", values.size(), positions.size()));
      Row row(table->columns.size());  // columns not listed are NULL
      for (std::size_t i = 0; i < values.size(); ++i) {
        auto v = literal_value(values[i]);
        if (!v)
          fail(line,
               fmt::format("setup INSERT values must be literals, found {}", render(values[i], Dialect::Portable)));
        row[positions[i]] = std::move(*v);
      }
      for (std::size_t i = 0; i < row.size(); ++i)
        if (row[i].is_null() && table->columns[i].not_null)
          fail(line, fmt::format("column {} of table {} is NOT NULL but this row gives it no value",
                                 table->columns[i].name, table->name));
      table->rows.push_back(std::move(row));
    }
  }

  // A step starts on a line "<transaction>: ..."; lines that do not are the continuation of the step before.
  static std::optional<std::size_t> step_colon(std::string_view text) {
    const std::string_view t = trim(text);
    const auto colon = t.find(':');
    if (colon == std::string_view::npos || !is_identifier(trim(t.substr(0, colon)))) return std::nullopt;
    return text.find(':');
  }

  // A connection as the steps section writes it: its transactions so far and the one open on it, if any.
  struct SessionState {
    std::vector<int> transactions;
    int open = -1;  // the transaction between its BEGIN and its end
    int begin_line = 0;
    int last_line = 0;
  };

  void read_steps() {
    struct Step {
      int line;
      std::string name, text;
    };
    std::vector<Step> steps;
    for (const Line& l : steps_->lines) {
      if (auto colon = step_colon(l.text)) {
        steps.push_back(
            {l.number, std::string(trim(l.text.substr(0, *colon))), std::string(l.text.substr(*colon + 1))});
      } else if (!steps.empty()) {
        steps.back().text += "\n" + std::string(l.text);
      } else if (auto t = trim(l.text); !t.empty() && !t.starts_with('#')) {
        fail(l.number, fmt::format("expected a step '<session>: <statement>;', found '{}'", t));
      }
    }
    if (steps.empty()) fail(steps_->header_line, "the steps section has no steps");

    // Each statement is checked alone against the schema, so an unknown table or column is reported on its line.
    TestCase probe;
    probe.schema = s_.schema;
    for (auto& t : probe.schema.tables) t.rows.clear();
    probe.transactions.resize(1);
    probe.transactions[0].statements.resize(1);
    probe.order = {0, 0, 0};

    std::vector<SessionState> sessions;
    std::map<std::string, int> index_of;
    auto new_transaction = [&](int session, bool autocommit) {
      const int txn = static_cast<int>(s_.transactions.size());
      s_.transactions.emplace_back();
      s_.transactions.back().autocommit = autocommit;
      s_.transactions.back().session = session;  // normalised below: -1 where it is alone on its connection
      transaction_session_.push_back(session);
      sessions[static_cast<std::size_t>(session)].transactions.push_back(txn);
      return txn;
    };
    for (const Step& step : steps) {
      Statement statement = parse_statement(step.text, path_, step.line);
      auto [it, fresh] = index_of.emplace(step.name, static_cast<int>(sessions.size()));
      const int session = it->second;
      if (fresh) {
        s_.session_names.push_back(step.name);
        sessions.emplace_back();
      }
      SessionState& state = sessions[static_cast<std::size_t>(session)];
      state.last_line = step.line;
      record_step(step.name, statement, state.open);
      if (statement.kind == StatementKind::Begin) {
        if (state.open >= 0)
          fail(step.line, fmt::format("{} is already in a transaction (BEGIN on line {}); it needs COMMIT or "
                                      "ROLLBACK before another BEGIN",
                                      step.name, state.begin_line));
        state.open = new_transaction(session, false);
        state.begin_line = step.line;
        s_.order.push_back(state.open);
      } else if (statement.kind == StatementKind::Commit || statement.kind == StatementKind::Rollback) {
        if (state.open < 0)
          fail(step.line, fmt::format("{} has no transaction to {}: it is in autocommit mode (no BEGIN since {}), "
                                      "where each statement commits by itself",
                                      step.name, to_string(statement.kind),
                                      state.transactions.empty() ? std::string("it started")
                                                                 : "its last transaction ended"));
        s_.transactions[static_cast<std::size_t>(state.open)].end =
            statement.kind == StatementKind::Commit ? TxnEnd::Commit : TxnEnd::Rollback;
        s_.transactions[static_cast<std::size_t>(state.open)].chain = statement.chain;
        s_.order.push_back(state.open);
        state.open = -1;
        if (statement.chain) {  // AND CHAIN: the next transaction begins with it (its BEGIN step sends nothing)
          state.open = new_transaction(session, false);
          state.begin_line = step.line;
          s_.order.push_back(state.open);
        }
      } else {
        if (statement.kind == StatementKind::Insert && statement.columns.empty())
          if (const Table* table = s_.schema.find_table(statement.table)) statement.columns = table->column_names();
        probe.transactions[0].statements[0] = statement;
        // A savepoint statement is checked with its transaction (ROLLBACK TO names an earlier SAVEPOINT), below.
        if (auto err = statement.is_savepoint() ? std::string() : probe.validate(); !err.empty()) {
          if (err.starts_with("T0: ")) err.erase(0, 4);
          fail(step.line, fmt::format("{}: {}", step.name, err));
        }
        if (state.open >= 0) {
          s_.transactions[static_cast<std::size_t>(state.open)].statements.push_back(std::move(statement));
          s_.order.push_back(state.open);
        } else {
          // Outside BEGIN ... COMMIT: an autocommit statement, a transaction of its own (its BEGIN, statement and
          // end steps are submitted together; only the statement is sent).
          const int txn = new_transaction(session, true);
          s_.transactions[static_cast<std::size_t>(txn)].statements.push_back(std::move(statement));
          s_.order.insert(s_.order.end(), 3, txn);
        }
      }
    }
    for (std::size_t i = 0; i < sessions.size(); ++i)
      if (sessions[i].open >= 0)
        fail(sessions[i].last_line, fmt::format("{} has no COMMIT or ROLLBACK (BEGIN on line {})", s_.session_names[i],
                                                sessions[i].begin_line));
    name_transactions(s_);
  }

  // "level <name>: ..." names a session (every transaction on it) or one transaction of it ("s1[2]", 1-based).
  std::vector<int> transactions_named(const std::string& name) const {
    std::vector<int> out;
    const auto& sessions = s_.session_names;
    std::string session = name;
    std::optional<std::size_t> position;
    if (const auto open = name.find('['); open != std::string::npos && name.ends_with(']')) {
      session = name.substr(0, open);
      const std::string digits = name.substr(open + 1, name.size() - open - 2);
      const bool number = !digits.empty() && digits.size() <= 4 &&
                          std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      if (!number) return out;
      position = std::stoul(digits);
    }
    const auto it = std::find(sessions.begin(), sessions.end(), session);
    if (it == sessions.end()) return out;
    const int k = static_cast<int>(it - sessions.begin());
    std::vector<int> mine;
    for (std::size_t t = 0; t < transaction_session_.size(); ++t)
      if (transaction_session_[t] == k) mine.push_back(static_cast<int>(t));
    if (!position) return mine;
    if (*position >= 1 && *position <= mine.size()) out.push_back(mine[*position - 1]);
    return out;
  }

  // "node <session>: <n>" places every transaction of the session on node n (1-based in the file).
  void resolve_nodes() {
    for (const auto& n : nodes_) {
      const std::vector<int> txns = transactions_named(n.session);
      if (txns.empty() || n.session.find('[') != std::string::npos)
        fail(n.line, fmt::format("node for {}, which names no session with steps (sessions: {})", n.session,
                                 join(s_.session_names, ", ")));
      for (int txn : txns) s_.transactions[static_cast<std::size_t>(txn)].node = n.node;
    }
  }

  void resolve_fixed_levels() {
    std::map<int, int> fixed_on;  // transaction -> line of the level that fixed it
    for (const auto& f : fixed_levels_) {
      const std::vector<int> txns = transactions_named(f.txn);
      if (txns.empty())
        fail(f.line, fmt::format("level for {}, which names no session or transaction with steps (sessions: {}; "
                                 "the k-th transaction of session s is s[k])",
                                 f.txn, join(s_.session_names, ", ")));
      for (int txn : txns) {
        if (auto [it, fresh] = fixed_on.emplace(txn, f.line); !fresh)
          fail(f.line, fmt::format("level for {} fixes {} again (its level is fixed on line {})", f.txn,
                                   s_.transaction_names[static_cast<std::size_t>(txn)], it->second));
        s_.fixed_levels[txn] = f.level;
        s_.transactions[static_cast<std::size_t>(txn)].isolation = f.level;
      }
    }
  }

  // Where each step line of a session lands in the test case (for 'error ... at s2:3'), before the line is applied to
  // the session's state: `open` is the transaction open on it then, -1 in autocommit mode.
  void record_step(const std::string& session, const Statement& statement, int open) {
    const int next = static_cast<int>(s_.transactions.size());  // the transaction a BEGIN or autocommit statement starts
    StepRef at;
    if (statement.kind == StatementKind::Begin) {
      at = {next, 0};
    } else if (open < 0) {
      at = {next, 1};  // an autocommit statement: its transaction's only statement
    } else {
      // A statement or the COMMIT / ROLLBACK after those so far (step 0 is BEGIN).
      at = {open, static_cast<int>(s_.transactions[static_cast<std::size_t>(open)].statements.size()) + 1};
    }
    session_steps_[session].push_back(at);
  }

  // error <target kind or *> <level or *> <code or class> at <session>:<n>
  void read_step_error(const Line& l, const std::vector<std::string>& words) {
    const auto at = std::find(words.begin(), words.end(), "at");
    if (words.size() < 6 || at != words.end() - 2)
      fail(l.number, "expected 'error <target kind or *> <level or *> <code or class> at <session>:<n>', e.g. "
                     "'error postgresql * 55P03 at s2:3'");
    StepErrorExpectation e;
    e.line = l.number;
    e.target = words[1];
    if (e.target != "*") check_target_kind(l.number, e.target);
    const std::string level_words = join(std::vector<std::string>(words.begin() + 2, at - 1), " ");
    if (level_words != "*") e.level = level(l.number, level_words);
    e.error = *(at - 1);
    e.step_name = words.back();
    const auto colon = e.step_name.rfind(':');
    const std::string session = colon == std::string::npos ? "" : e.step_name.substr(0, colon);
    const std::string digits = colon == std::string::npos ? "" : e.step_name.substr(colon + 1);
    const auto it = session_steps_.find(session);
    const bool number = !digits.empty() && digits.size() <= 4 &&
                        std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (it == session_steps_.end() || !number || std::stoul(digits) < 1 || std::stoul(digits) > it->second.size())
      fail(l.number, fmt::format("'{}' names no step: expected <session>:<n>, the n-th step line of a session "
                                 "(sessions: {})",
                                 e.step_name, join(s_.session_names, ", ")));
    const StepRef ref = it->second[std::stoul(digits) - 1];
    e.txn = ref.txn;
    e.step = ref.index;
    s_.step_errors.push_back(std::move(e));
  }

  void read_expect() {
    for (const Line& l : expect_->lines) {
      std::string_view t = l.text.substr(0, std::min(l.text.find('#'), l.text.size()));
      const auto words = split(t, " \t");
      if (words.empty()) continue;
      if (words[0] == "error") {
        read_step_error(l, words);
        continue;
      }
      if (words.size() < 4)
        fail(l.number, fmt::format("expected '<property> <target kind or *> <level or *> <verdict>', e.g. "
                                   "'adya mariadb repeatable read lost-update', found '{}'",
                                   trim(t)));
      Expectation e;
      e.line = l.number;
      e.property = words[0];
      read_expectation_target(l.number, words[1], e);
      e.negated = words.size() >= 5 && words[words.size() - 2] == "not";
      const std::string level_words =
          join(std::vector<std::string>(words.begin() + 2, words.end() - (e.negated ? 2 : 1)), " ");
      if (level_words != "*") e.level = level(l.number, level_words);
      e.verdict = words.back();
      if (e.negated && (e.verdict == "ok" || e.verdict == "no-verdict"))
        fail(l.number, fmt::format("'not {}' is not an expectation: name a finding kind", e.verdict));
      check_expectation(l.number, e);
      s_.expectations.push_back(std::move(e));
    }
  }

  // "<kind or *>", then optionally "[<name>=<value>,...]" (target parameters), then optionally "@<versions>" (the
  // versions: header's form, without spaces).
  void read_expectation_target(int line, const std::string& word, Expectation& e) const {
    auto at = word.find('@');
    const auto bracket = word.find('[');
    e.target = word.substr(0, std::min(at, bracket));
    if (e.target != "*") check_target_kind(line, e.target);
    if (bracket < at) {
      const auto close = word.find(']', bracket);
      if (close == std::string::npos || (close + 1 < word.size() && word[close + 1] != '@'))
        fail(line, fmt::format("'{}': expected <kind>[<parameter>=<value>,...] with nothing but @<versions> after "
                               "']', e.g. galera[wsrep_sync_wait=3]",
                               word));
      read_target_params(line, word, word.substr(bracket + 1, close - bracket - 1), e);
      at = close + 1 < word.size() ? close + 1 : std::string::npos;
    }
    if (at == std::string::npos) return;
    e.versions_text = word.substr(at + 1);
    if (e.versions_text.empty())
      fail(line, fmt::format("'{}' names no versions after '@' (write e.g. postgresql@12.0-15.17,16)", word));
    for (const auto& item : split(e.versions_text, ",")) e.versions.push_back(version_range(line, item));
  }

  // The "<name>=<value>,..." between an expectation target's brackets: each a URI parameter's name (lower case, as
  // target_config.hpp reads it; one the registered engines know where the vocabulary lists them) and a value.
  void read_target_params(int line, const std::string& word, const std::string& list, Expectation& e) const {
    const auto& known = vocabulary_.target_parameters;
    for (const auto& item : split(list, ",")) {
      const auto eq = item.find('=');
      const std::string name = lower(eq == std::string::npos ? item : item.substr(0, eq));
      const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
      if (!is_identifier(name) || value.empty())
        fail(line, fmt::format("'{}': expected <parameter>=<value> between the brackets, e.g. "
                               "galera[wsrep_sync_wait=3], found '{}'",
                               word, item));
      if (!known.empty() && std::find(known.begin(), known.end(), name) == known.end())
        fail(line, fmt::format("'{}': unknown target parameter '{}' (known: {})", word, name, join(known, ", ")));
      if (!e.params.emplace(name, value).second)
        fail(line, fmt::format("'{}': parameter '{}' named twice", word, name));
    }
    if (e.params.empty())
      fail(line, fmt::format("'{}' names no parameter between the brackets (write e.g. galera[wsrep_sync_wait=3])", word));
  }

  struct FixedLevel {
    int line;
    std::string txn;
    IsolationLevel level;
  };

  std::string path_;
  const ScenarioVocabulary& vocabulary_;
  std::vector<Line> lines_;
  std::vector<Line> header_;
  std::optional<Section> setup_, steps_, expect_;
  std::vector<FixedLevel> fixed_levels_;
  struct Node {
    int line;
    std::string session;
    int node;  // 0-based
  };
  std::vector<Node> nodes_;
  std::vector<int> transaction_session_;  // per transaction: its session's index in s_.session_names
  std::map<std::string, std::vector<StepRef>> session_steps_;  // per session: where each of its step lines landed
  Scenario s_;
};

}  // namespace

TestCase Scenario::test_case(IsolationLevel level) const {
  TestCase c;
  c.schema = schema;
  c.transactions = transactions;
  for (std::size_t i = 0; i < c.transactions.size(); ++i) {
    auto fixed = fixed_levels.find(static_cast<int>(i));
    c.transactions[i].isolation = fixed == fixed_levels.end() ? level : fixed->second;
  }
  c.order = order;
  return c;
}

TestCase Scenario::replay_case(IsolationLevel level) const {
  TestCase c = test_case(level);
  if (!c.has_placement())
    for (auto& t : c.transactions) t.node = 0;
  return c;
}

std::string Scenario::version_mismatch(int server_version_num) const {
  if (versions.empty()) return {};
  if (server_version_num <= 0)
    return fmt::format("the scenario applies to versions {} and the target does not report its version", versions_text);
  for (const VersionRange& r : versions)
    if (r.contains(server_version_num)) return {};
  return fmt::format("the scenario applies to versions {}, the server is {}.{}", versions_text,
                     server_version_num / 10000, server_version_num % 10000);
}

bool Scenario::applies_to(const std::string& kind) const {
  return applies.empty() || std::find(applies.begin(), applies.end(), kind) != applies.end();
}

namespace {

// An expectation's target kind ("*": any) and level (none: any) match this target and level.
bool matches(const std::string& target, const std::optional<IsolationLevel>& level, const std::string& kind,
             IsolationLevel at) {
  return (target == "*" || target == kind) && (!level || *level == at);
}

}  // namespace

bool StepErrorExpectation::applies(const std::string& kind, IsolationLevel at) const {
  return matches(target, level, kind, at);
}

bool Expectation::applies(const std::string& kind, IsolationLevel at, int server_version_num,
                          const std::map<std::string, std::string>& target_params) const {
  if (!matches(target, level, kind, at)) return false;
  for (const auto& [name, value] : params) {
    const auto it = target_params.find(name);
    if (it == target_params.end() || lower(it->second) != lower(value)) return false;
  }
  if (versions.empty()) return true;
  return server_version_num > 0 && std::any_of(versions.begin(), versions.end(),
                                         [&](const VersionRange& r) { return r.contains(server_version_num); });
}

std::vector<Expectation> Scenario::expectations_for(const std::string& property, const std::string& kind,
                                                    IsolationLevel level, int server_version_num,
                                                    const std::map<std::string, std::string>& target_params) const {
  std::vector<Expectation> out;
  for (const auto& e : expectations)
    if (e.property == property && e.applies(kind, level, server_version_num, target_params)) out.push_back(e);
  return out;
}

Scenario parse_scenario(std::string_view text, const std::string& path, const ScenarioVocabulary& vocabulary) {
  // Limits that turn hostile input into an error rather than a long run (each session is a connection).
  constexpr std::size_t kMaxScenarioBytes = 1 << 20;
  if (text.size() > kMaxScenarioBytes)
    throw ScenarioError(path, 0, fmt::format("the scenario is {} bytes; at most {} are read", text.size(), kMaxScenarioBytes));
  Scenario s = Reader(text, path, vocabulary).read();
  constexpr std::size_t kMaxSessions = 64, kMaxSteps = 4096;
  if (s.session_names.size() > kMaxSessions)
    throw ScenarioError(path, 0, fmt::format("the scenario has {} sessions; at most {} are supported",
                                             s.session_names.size(), kMaxSessions));
  if (s.order.size() > kMaxSteps)
    throw ScenarioError(path, 0, fmt::format("the scenario has {} steps; at most {} are supported", s.order.size(), kMaxSteps));
  return s;
}

Scenario load_scenario(const std::string& path, const ScenarioVocabulary& vocabulary) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path, 0, fmt::format("cannot read the scenario file ({})", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ScenarioError(path, 0, "cannot read the scenario file (read error)");
  return parse_scenario(text.str(), path, vocabulary);
}

std::string write_scenario(const Scenario& s) {
  auto name_of = [&](std::size_t txn) {
    return txn < s.transaction_names.size() && !s.transaction_names[txn].empty() ? s.transaction_names[txn]
                                                                                 : fmt::format("T{}", txn);
  };
  // The connection a step is written on: its session's name, or the transaction's own where it is alone.
  auto session_of = [&](std::size_t txn) {
    const int k = s.transactions[txn].session;
    if (k < 0) return name_of(txn);
    return static_cast<std::size_t>(k) < s.session_names.size() ? s.session_names[static_cast<std::size_t>(k)]
                                                                 : fmt::format("s{}", k + 1);
  };
  std::string out;
  if (!s.name.empty()) out += "name: " + s.name + "\n";
  if (!s.source.empty()) out += "source: " + s.source + "\n";
  if (!s.link.empty()) out += "link: " + s.link + "\n";
  if (!s.applies.empty()) out += "applies: " + join(s.applies, ", ") + "\n";
  if (!s.levels.empty()) {
    std::vector<std::string> levels;
    for (auto l : s.levels) levels.push_back(level_text(l));
    out += "levels: " + join(levels, ", ") + "\n";
  }
  if (!s.versions_text.empty()) out += "versions: " + s.versions_text + "\n";
  // A level shared by every transaction of a session is written once for the session.
  std::map<std::string, std::vector<int>> by_session;
  for (std::size_t t = 0; t < s.transactions.size(); ++t) by_session[session_of(t)].push_back(static_cast<int>(t));
  std::set<std::string> written;
  for (const auto& [txn, level] : s.fixed_levels) {
    const std::string session = session_of(static_cast<std::size_t>(txn));
    const auto& mine = by_session[session];
    const bool whole = std::all_of(mine.begin(), mine.end(), [&](int t) {
      const auto it = s.fixed_levels.find(t);
      return it != s.fixed_levels.end() && it->second == level;
    });
    if (!whole) out += fmt::format("level {}: {}\n", name_of(static_cast<std::size_t>(txn)), level_text(level));
    else if (written.insert(session).second) out += fmt::format("level {}: {}\n", session, level_text(level));
  }

  // A session's node, where the case places it (Transaction::node), once per session, 1-based.
  std::set<std::string> placed;
  for (std::size_t t = 0; t < s.transactions.size(); ++t)
    if (s.transactions[t].node >= 0 && placed.insert(session_of(t)).second)
      out += fmt::format("node {}: {}\n", session_of(t), s.transactions[t].node + 1);

  out += "\nsetup:\n";
  for (const auto& sql : render_setup(s.schema, Dialect::Portable)) out += sql + ";\n";

  out += "\nsteps:\n";
  // Whether the transaction before `txn` on its connection ended AND CHAIN (which began `txn`).
  auto chained_before = [](const Scenario& sc, std::size_t txn) {
    const int k = sc.transactions[txn].session;
    for (std::size_t j = txn; k >= 0 && j-- > 0;)
      if (sc.transactions[j].session == k) return sc.transactions[j].chain && !sc.transactions[j].autocommit;
    return false;
  };
  std::vector<std::size_t> next(s.transactions.size(), 0);
  for (int txn : s.order) {
    const auto i = static_cast<std::size_t>(txn);
    const Transaction& tx = s.transactions[i];
    const Statement step = tx.step(next[i]++);
    // An autocommit statement is written as the statement alone, outside BEGIN ... COMMIT.
    if (tx.autocommit && step.is_transaction_control()) continue;
    if (step.kind == StatementKind::Begin && chained_before(s, i)) continue;  // AND CHAIN began it
    out += fmt::format("{}: {};\n", session_of(i), render(step, Dialect::Portable));
  }

  out += "\nexpect:\n";
  for (const auto& e : s.expectations)
    out += fmt::format("{} {}{}{} {} {}{}\n", e.property, e.target, params_text(e.params),
                       e.versions_text.empty() ? "" : "@" + e.versions_text,
                       e.level ? level_text(*e.level) : "*", e.negated ? "not " : "", e.verdict);
  for (const auto& e : s.step_errors)
    out += fmt::format("error {} {} {} at {}\n", e.target, e.level ? level_text(*e.level) : "*", e.error, e.step_name);
  return out;
}

Scenario scenario_from_test_case(const TestCase& c, std::string name) {
  Scenario s;
  s.name = std::move(name);
  s.schema = c.schema;
  s.transactions = c.transactions;
  s.order = c.order;
  if (c.has_shared_sessions()) {
    // Connections named s1, s2, ... as in PostgreSQL's isolation specs; transactions after them.
    const auto connections = c.sessions();
    for (std::size_t k = 0; k < connections.size(); ++k) {
      s.session_names.push_back(fmt::format("s{}", k + 1));
      for (int t : connections[k]) s.transactions[static_cast<std::size_t>(t)].session = static_cast<int>(k);
    }
    name_transactions(s);
  } else {
    for (std::size_t i = 0; i < c.transactions.size(); ++i) {
      s.transaction_names.push_back(fmt::format("T{}", i));
      s.session_names.push_back(fmt::format("T{}", i));
      s.transactions[i].session = -1;
    }
  }
  const bool mixed = std::any_of(c.transactions.begin(), c.transactions.end(),
                                 [&](const Transaction& t) { return t.isolation != c.transactions.front().isolation; });
  if (mixed) {
    for (std::size_t i = 0; i < c.transactions.size(); ++i)
      s.fixed_levels[static_cast<int>(i)] = c.transactions[i].isolation;
  } else if (!c.transactions.empty()) {
    s.levels = {c.transactions.front().isolation};
    // Like a parsed scenario, a transaction without a fixed level holds the default; test_case(level) sets it.
    for (auto& t : s.transactions) t.isolation = Transaction{}.isolation;
  }
  return s;
}

}  // namespace txprop
