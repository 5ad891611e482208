// Adya's isolation levels as the sets of phenomena they proscribe (Adya's thesis, as restated in
// notes/seed-txcheck-thesis.md §6.6 and notes/seed-isorel.md §6.2), and the rule that relates the kinds the checker
// reports to those phenomena.
//
//   PL-1     G0
//   PL-2     G0 G1a G1b G1c
//   PL-2.99  PL-2 + G2-item                   (item anti-dependencies; IsoRel's "RR"; an item G-single is a G2-item)
//   SI       PL-2 + G-SIa G-SIb               (write skew, a G2-item with two anti-dependencies, is allowed)
//   PL-3     PL-2.99 + G2                     (G2 with predicate anti-dependencies: phantoms)
//
// With predicate edges: a cycle with exactly one anti-dependency that is a predicate one is kind
// "G-single-predicate" (G-single, G-SIb and G2, not G2-item: allowed at PL-2.99); a cycle with two or more
// anti-dependencies, all predicate ones, is kind "G2" (G2 only).
//
// Reporting rule: every cycle is reported once, under its MOST SPECIFIC kind, and it is reported when ANY class it
// belongs to is proscribed. A lost update is kind "lost-update"; it is also a G-single, and so a G-SIb (a DSG cycle
// with exactly one anti-dependency is an SSG cycle with exactly one), a G2-item and a G2: it is reported at PL-2.99, SI
// and PL-3, and its explanation names those classes. classes_of() is that membership table. "impossible-history" is not
// an isolation phenomenon: no level allows it, and it is always reported.
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace txprop::adya {

enum class AdyaLevel { PL1, PL2, PL2_99, SI, PL3 };

std::string_view to_string(AdyaLevel level);  // "PL-1", "PL-2", "PL-2.99", "PL-SI", "PL-3"

// The phenomena the level proscribes, by Adya's definitions (Adya class names only).
std::set<std::string> proscribed(AdyaLevel level);

// The kinds this checker reports: Adya classes and the named refinements.
const std::set<std::string>& adya_kinds();

// The classes a reported kind belongs to, itself included. E.g. "write-skew" -> {write-skew, G2-item, G2}.
std::set<std::string> classes_of(std::string_view kind);

// Whether a finding of `kind` violates a level proscribing `phenomena` (some class of the kind is proscribed).
bool is_proscribed(const std::set<std::string>& phenomena, std::string_view kind);
bool is_proscribed(AdyaLevel level, std::string_view kind);

}  // namespace txprop::adya
