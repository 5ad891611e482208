// Property: Adya cycle-freedom (IsoRel, ISSTA'25; Adya's thesis; shared/notes/seed-isorel.md). The case runs
// instrumented (row id + writer list per row, see instrumentation.hpp); the direct serialization graph is built
// from what the reads returned, and its cycles are classified as G0, G1c, G-single, G2-item (with the named
// patterns lost update, read skew, write skew), besides aborted and intermediate reads (G1a, G1b) and snapshot
// interference (G-SIa, G-SIb). Which phenomena fail the test comes from an expectation table per engine, level
// and configuration, in two modes:
//   Claimed     the level's ANSI name read as Adya's level (READ UNCOMMITTED = PL-1, READ COMMITTED = PL-2,
//               REPEATABLE READ = PL-2.99, SERIALIZABLE = PL-3). A phenomenon the engine documents for that
//               level (e.g. lost update at MariaDB REPEATABLE READ) is a deviation: the property stops there,
//               shrinks it and reports it with its source, without failing the test; anything else fails.
//   Documented  only what the engine's documentation promises to prevent fails; the rest is counted and printed
//               as documented behaviour with its source.
#pragma once

#include <map>
#include <set>
#include <string>

#include "txprop/adya_levels.hpp"
#include "txprop/engine.hpp"
#include "txprop/history.hpp"
#include "txprop/target.hpp"
#include "txprop/test_case.hpp"
#include "txprop/verdict.hpp"

namespace txprop {

enum class AdyaMode { Claimed, Documented };

// What a level claims in Adya's terms: its ANSI name read as Adya's level (READ UNCOMMITTED = PL-1, READ COMMITTED =
// PL-2, REPEATABLE READ = PL-2.99, SERIALIZABLE = PL-3). What the engine promises is its profile's DocumentedBehaviour
// (promise, prevented, allowed), which check_adya reads as it is.
adya::AdyaLevel adya_claimed_level(IsolationLevel level);

// The case with IsoRel's instrumentation for this engine (run this, then check_adya the history).
TestCase instrument_for_adya(const TestCase& c, const EngineProfile& engine);

// Judges a history of an instrumented case. Attaches the history in Elle's list-append form (history.edn).
Verdict check_adya(Target& target, const History& h, AdyaMode mode);

}  // namespace txprop
