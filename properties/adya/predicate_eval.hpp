// Evaluating a WHERE clause on one row version, as the engines would, for predicate dependencies (Adya's "changes the
// matches of a predicate read"). Exact or nothing: where txprop cannot be sure every engine gives the same answer it
// says so (nullopt / Match::Unknown), and the checker then draws no predicate edge through that version (under-
// approximation: no invented edge, so no false cycle). Not modelled, hence unknown:
//   - subqueries, IN (SELECT ...) and EXISTS (their own version sets are not recorded);
//   - aggregates (HAVING: over many rows, not one version);
//   - text ordering other than between lower-case ASCII letters, and text equality of strings that differ only in
//     case, trailing spaces or non-ASCII characters (collations: MariaDB's default is case-insensitive, PAD SPACE);
//   - arithmetic on REAL values and integer overflow (engines differ: error, wrap, promote);
//   - comparisons between a number and a text (type affinity, implicit casts);
//   - a bare non-integer value used as a condition;
//   - CAST except an integer to TEXT or REAL and a value to its own type (engines round and parse differently).
// TRUE / FALSE are 1 / 0, as every engine reads a BOOLEAN back; x IS [NOT] TRUE | FALSE and IS [NOT] DISTINCT FROM
// (MariaDB <=>) are never NULL.
// SQL NULL follows three-valued logic (NULL AND FALSE is FALSE, NULL OR TRUE is TRUE, comparisons with NULL are NULL,
// x IN (..., NULL) without a match is NULL); a version matches only when the condition is TRUE.
#pragma once

#include <optional>

#include "txprop/adya_history.hpp"
#include "txprop/expr.hpp"
#include "txprop/schema.hpp"

namespace txprop::adya {

// The value of `e` on `row` (a row of `table`, one value per column), or nullopt where txprop cannot tell exactly.
// Truth values are the integers 1 and 0, unknown truth is NULL.
std::optional<Value> evaluate(const Expr& e, const Table& table, const Row& row);

// Whether the version matches `where` (no WHERE: every row matches).
Match matches(const std::optional<Expr>& where, const Table& table, const Row& row);

}  // namespace txprop::adya
