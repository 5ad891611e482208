// The RapidCheck functions txprop's harness uses that the installed RapidCheck headers (Debian's librapidcheck-dev)
// do not declare, declared here and nowhere else. They live in librapidcheck.a: the default test listener (it prints
// RC_PARAMS="reproduce=..." at exit) and the reproduce-string codec. tests/unit/rapidcheck_glue_test.cpp links and
// round-trips them, so a RapidCheck that changes them fails that test with a clear name instead of the harness.
#pragma once

#include <rapidcheck.h>

#include <string>
#include <unordered_map>

namespace rc::detail {
TestListener& globalTestListener();
std::string reproduceMapToString(const std::unordered_map<std::string, Reproduce>& reproduceMap);
std::unordered_map<std::string, Reproduce> stringToReproduceMap(const std::string& str);
}  // namespace rc::detail
