// A recursive-descent parser for txprop's portable SQL: the text render(..., Dialect::Portable) prints, plus the
// spellings a person pastes from an engine (quoted identifiers, START TRANSACTION, LOCK IN SHARE MODE, CONCAT,
// engine column types). It inverts the renderer (sql.hpp). Every error is a SyntaxError at the line the problem is
// on; scenario files (scenario.hpp) report their own problems with the same type.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "txprop/schema.hpp"
#include "txprop/statement.hpp"

namespace txprop {

// Text that cannot be read. what() is "<path>:<line>: <what is wrong>" ("<path>: ..." when there is no line).
class SyntaxError : public std::runtime_error {
 public:
  SyntaxError(const std::string& path, int line, const std::string& message);
  const std::string& path() const { return path_; }
  int line() const { return line_; }

 private:
  std::string path_;
  int line_;
};

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

// One statement of the portable dialect (the whole text).
Statement parse_statement(std::string_view sql, const std::string& path = "<sql>", int line = 1);

}  // namespace txprop
