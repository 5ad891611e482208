// Replaying scenario files and judging them with the shipped properties.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "txprop/engine.hpp"
#include "txprop/scenario.hpp"
#include "txprop/target.hpp"
#include "txprop/verdict.hpp"

namespace txprop {

// A property as scenario files name it: how to prepare a case for it (instrumentation, where the property needs
// it) and how to judge the history of the prepared case.
struct ScenarioProperty {
  std::function<TestCase(const TestCase&, const EngineProfile&)> prepare;  // identity when empty
  std::function<Verdict(Target&, const History&)> judge;
  TestCase prepared(const TestCase& c, const EngineProfile& engine) const { return prepare ? prepare(c, engine) : c; }
  Verdict operator()(Target& target, const TestCase& c) const;  // prepare, run, judge
};

// "atomicity", "wss", "adya", and any registered with register_scenario_property.
const ScenarioProperty* find_scenario_property(const std::string& name);
std::vector<std::string> scenario_property_names();
bool register_scenario_property(const std::string& name, ScenarioProperty property);

// What scenario files may name: the registered target kinds, properties and their finding kinds.
ScenarioVocabulary registered_vocabulary();

// One scenario on one target, at every level it names that the target supports: each matching expectation is
// checked. Returns an empty string when everything matched, else what did not (with the verdicts and histories).
// `levels_run` receives the levels it ran at.
std::string replay_scenario(const Scenario& s, Target& target, std::vector<IsolationLevel>* levels_run = nullptr);

// Registers one GoogleTest case per (scenario file in `directories`, configured target it applies to), named
// Scenario.<file>/<target>; a malformed file becomes a failing case that names the file and line.
void register_scenario_tests(const std::vector<std::string>& directories);

}  // namespace txprop
