// Property: aborted transactions have no effect. Replaying the actual order of the steps of the transactions
// that committed, with every rolled-back or engine-aborted transaction left out, on a fresh database, gives each
// remaining statement the same outcome and gives the same final state. TxCheck found this class in MySQL: a
// rolled-back INSERT changed how many rows a later UPDATE matched (shared/notes/seed-txcheck-thesis.md §5.4).
#pragma once

#include "txprop/history.hpp"
#include "txprop/target.hpp"
#include "txprop/verdict.hpp"

namespace txprop {

struct AtomicityOptions {
  // Report a difference as a violation even where the engine documents it (READ UNCOMMITTED dirty reads).
  bool ignore_documentation = false;
};

Verdict check_atomicity(Target& target, const History& h, const AtomicityOptions& options = {});

}  // namespace txprop
