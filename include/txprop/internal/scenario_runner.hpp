// Replaying scenario files and judging them with the registered oracles (oracle.hpp).
#pragma once

#include <string>
#include <vector>

#include "txprop/engine.hpp"
#include "txprop/oracle.hpp"
#include "txprop/scenario.hpp"
#include "txprop/target.hpp"
#include "txprop/verdict.hpp"

namespace txprop {

// What scenario files may name: the registered target kinds, properties and their finding kinds.
ScenarioVocabulary registered_vocabulary();

// Whether `oracle`'s verdict `v` meets expectation `e`: "ok" when it has no finding and a verdict; a kind or class
// when some finding is in it (lost-update meets G-single); "not X" when no finding is in class X of a history the
// oracle judged (no verdict meets no expectation).
bool expectation_met(const Expectation& e, const Verdict& v, const Oracle& oracle);

// One scenario on one target, at every level it names that the target supports: each matching expectation is
// checked. Returns an empty string when everything matched, else what did not (with the verdicts and histories).
// `levels_run` receives the levels it ran at; `seen`, what each property with an expectation found, e.g.
// "ser wss result-mismatch; ser atomicity ok" (for tables of which versions show a known bug).
std::string replay_scenario(const Scenario& s, Target& target, std::vector<IsolationLevel>* levels_run = nullptr,
                            std::string* seen = nullptr);

// Registers one GoogleTest case per (scenario file in `directories`, configured target it applies to), named
// Scenario.<file>/<target>; a malformed file becomes a failing case that names the file and line. With
// `report_unconfigured`, a file that applies to no configured target becomes one skipped case,
// Scenario.<file>/not_configured, saying which target kinds it needs (the engine bugs of tests/scenarios/engine_bugs/).
void register_scenario_tests(const std::vector<std::string>& directories, bool report_unconfigured = false);

}  // namespace txprop
