// What a property suite's result says outside the test: the record of the suite for TXPROP_SUMMARY_FILE
// (run_summary.hpp; `txprop summary` and scripts/main.sh read it), with its counts and the findings the engine
// documents or the level allows. PropertyResult::summary(), the same in words, is in result_summary.cpp too.
#pragma once

#include <string>

#include "run_summary.hpp"
#include "txprop/property.hpp"

namespace txprop {

// The record of one suite run. `status`: passed, failed, deviation, error. `server`: the server's version where the
// target was reached ("PostgreSQL 17.10"), for tables across versions.
run_summary::Record suite_record(const std::string& property, const SuiteParam& p, const std::string& status,
                                 const PropertyResult* r, const std::string& message, const std::string& server = "");

}  // namespace txprop
