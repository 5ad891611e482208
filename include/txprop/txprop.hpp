// Everything a property author needs: the model, SQL rendering and parsing, engines and targets, histories,
// generators, oracles (the registry and the shipped ones), scenario files, and the TXPROP_PROPERTY harness.
#pragma once

#include "txprop/adya.hpp"
#include "txprop/atomicity.hpp"
#include "txprop/comparison.hpp"
#include "txprop/database_state.hpp"
#include "txprop/engine.hpp"
#include "txprop/generators.hpp"
#include "txprop/history.hpp"
#include "txprop/oracle.hpp"
#include "txprop/property.hpp"
#include "txprop/scenario.hpp"
#include "txprop/internal/scenario_runner.hpp"
#include "txprop/sql.hpp"
#include "txprop/sql_parser.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"
#include "txprop/internal/targets.hpp"
#include "txprop/test_case.hpp"
#include "txprop/verdict.hpp"
#include "txprop/wss.hpp"
