// The scheduling protocol (Troc Algorithm 1 / WriteCheck Algorithm 2, generalised to n transactions): steps are
// submitted one at a time in the submitted order; a statement is blocked only when the server says its session
// waits on a lock; later steps of a blocked transaction queue behind it; when a transaction ends, blocked
// statements resume first, and the scheduler waits until each has completed or is blocked again before it
// submits the next step. This gives one actual order per submitted order.
// Deadlocks (README, "Deadlocks are deterministic"): a cycle of waits the server's blockers show is ended by the
// runner with the victim the driver's rule names (Driver::deadlock_victim: PostgreSQL the youngest transaction of the
// cycle, SQLite a writer before a committer), or left to an engine that breaks it at once with a documented victim
// (InnoDB); either way the victim's error is recorded before anything its abort released.
#pragma once

#include <vector>

#include "txprop/driver.hpp"
#include "session_worker.hpp"
#include "txprop/target.hpp"

namespace txprop::runner {

// Runs `c` on an already reset database: workers[k] is connection k of c.sessions() and runs its transactions one
// after the other (a transaction's steps queue until the previous one on its connection ended). Fills everything in the History except
// the final state and the target's identity.
History schedule(const TestCase& c, drivers::Driver& driver, const std::vector<SessionWorker*>& workers,
                 CompletionSignal& signal, const RunOptions& options, RunMetrics& metrics);

}  // namespace txprop::runner
