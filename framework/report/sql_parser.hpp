// A recursive-descent parser for txprop's portable SQL: the text render(..., Dialect::Portable) prints, plus the
// spellings a person pastes from an engine (quoted identifiers, START TRANSACTION, LOCK IN SHARE MODE, CONCAT,
// engine column types). Private to the report folder; the public entry point is parse_statement in
// txprop/scenario.hpp. Every error is a ScenarioError at the line the problem is on.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "txprop/schema.hpp"
#include "txprop/statement.hpp"

namespace txprop {

// CREATE [UNIQUE] INDEX name ON table (columns).
struct CreateIndex {
  std::string table;
  Index index;
  friend bool operator==(const CreateIndex&, const CreateIndex&) = default;
};

// One statement of a scenario's setup section: CREATE TABLE, CREATE INDEX, or a statement (INSERT). An INSERT
// without a column list has empty `columns`: the reader fills them in from the table.
struct SetupStatement {
  int line = 0;  // where the statement starts
  std::variant<Table, CreateIndex, Statement> what;
};

// Statements separated by ';' (the last ';' is optional). `first_line` is the line `text` starts on in `path`.
std::vector<SetupStatement> parse_setup(std::string_view text, const std::string& path, int first_line);

// One expression (the whole text).
Expr parse_expression(std::string_view sql, const std::string& path = "<sql>", int line = 1);

}  // namespace txprop
