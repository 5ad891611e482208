// Everything a property author needs.
#pragma once

#include "txprop/atomicity.hpp"
#include "txprop/comparison.hpp"
#include "txprop/generators.hpp"
#include "txprop/history.hpp"
#include "txprop/property.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"
#include "txprop/targets.hpp"
#include "txprop/test_case.hpp"
#include "txprop/verdict.hpp"
#include "txprop/wss.hpp"
