// Rendering of the model as SQL text, per dialect. The portable dialect is txprop's own canonical text: what
// counterexamples print and what scenario files contain.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "txprop/isolation.hpp"
#include "txprop/test_case.hpp"

namespace txprop {

enum class Dialect { Portable, Sqlite, PostgreSql, MySql };

std::string to_string(Dialect d);

std::string quote_identifier(const std::string& name, Dialect d);
std::string render_literal(const Value& v, Dialect d);
std::string render_type(ColumnType type, Dialect d);
std::string render(const Expr& e, Dialect d);
std::string render(const Statement& s, Dialect d);
std::string render_create_table(const Table& t, Dialect d);
// CREATE TABLE, CREATE INDEX and INSERT statements that build the schema with its rows, in order.
std::vector<std::string> render_setup(const Schema& schema, Dialect d);
// The one INSERT of a table's initial rows (empty when it has none): render_setup's last statement for the table.
std::string render_insert_rows(const Table& t, Dialect d);
// What a session runs before BEGIN to give its next transaction this level (empty where the engine has none).
std::string render_set_isolation(IsolationLevel level, Dialect d);
// What a session runs before BEGIN to name its next transaction's writer id for the triggers of a CascadeLog
// (Transaction::writer): a session variable, which takes no lock and no snapshot. Empty for the portable dialect.
std::string render_set_writer(int writer, Dialect d);
// The triggers render_setup creates after table `t` for its CascadeLog (none without one). Throws for MariaDB/MySQL,
// which fire no trigger for a foreign key's writes.
std::vector<std::string> render_cascade_log(const Table& t, Dialect d);
// What a session runs to turn its enforcement of foreign keys (checks and actions) off or on again, for a scratch
// session that materialises rows as no transaction could (Troc's views). PostgreSQL's needs a superuser. Empty for the
// portable dialect.
std::string render_foreign_key_enforcement(bool on, Dialect d);

// RapidCheck shows generated values with these; they print portable SQL.
std::ostream& operator<<(std::ostream& os, const Statement& s);
std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Schema& s);
std::ostream& operator<<(std::ostream& os, const TestCase& c);

// The test case as readable text: schema and rows as SQL, each transaction with its level, the submitted order.
std::string describe(const TestCase& c, Dialect d = Dialect::Portable);

}  // namespace txprop
