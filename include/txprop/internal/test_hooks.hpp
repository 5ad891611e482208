// Hooks for txprop's own tests, not for projects: entry points that let a test reach inside an oracle to plant or
// inspect what it judges. Kept out of the public headers so that an author of an engine or an oracle does not take
// them for API. (Target::open_judged_as, the server-free target, stays in target.hpp: a project's own oracle tests
// use it too.)
#pragma once

#include "txprop/history.hpp"

namespace txprop::adya {
struct ObservedHistory;
// What an instrumented run observed, as check_adya reads it from the history (for tests that plant histories).
ObservedHistory observe(const History& h);
}  // namespace txprop::adya
