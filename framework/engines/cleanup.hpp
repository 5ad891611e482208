// What a test process created on its engines is removed when it ends, however it ends:
// - normally: each driver drops its database, schema or file in its destructor;
// - on SIGINT or SIGTERM: a signal thread runs the registered clean-ups (each on a fresh connection, bounded in
//   time), then the process dies of the signal as it would have;
// - after SIGKILL or a crash: the next run, on any host, reclaims the objects whose owner no longer holds them.
// Ownership is something the server (or, for SQLite, the kernel) can check: the owning run's control connection holds
// a lock named for the object for its whole life, taken before the object is created (PostgreSQL: a session-level
// advisory lock keyed by ownership_key(name); MariaDB: GET_LOCK(name); SQLite: flock on <name>.lock). A run reclaims
// an object only when it gets that lock without waiting; pid liveness is never consulted, since a run in another PID
// namespace or on another host cannot see the owner's process (issue 23). Only names of the strict pattern
// txprop_<pid>_<16 hex digits> (see unique_database_name()) are ever reclaimed: nothing txprop did not create.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace txprop::drivers {

// Held by a driver while it creates its objects (from taking the ownership lock to the object's creation). A signal
// waits for it before running the clean-ups and keeps it until the process has died of the signal, so no object is
// created after its clean-up ran (issue 23: a SIGINT during the setup left the database behind).
class CreationSection {
 public:
  CreationSection();
  ~CreationSection();
  CreationSection(const CreationSection&) = delete;
  CreationSection& operator=(const CreationSection&) = delete;
};

// Registers a clean-up to run on SIGINT/SIGTERM; returns an id for unregister_cleanup.
int register_cleanup(std::function<void()> cleanup);
void unregister_cleanup(int id);

// Whether `name` is txprop_<pid>_<16 lower-case hex digits>: an object name unique_database_name() makes, which a run
// may reclaim once its lock is free. Older schemes (txprop_<pid>_<8 hex>) and anything else are never touched.
bool is_reclaimable_name(const std::string& name);

// The 64-bit key of the PostgreSQL advisory lock that owns the object `name` (its 64 random bits); nullopt when
// `name` is not reclaimable.
std::optional<std::int64_t> ownership_key(const std::string& name);

// The line printed when an object is reclaimed.
std::string reclaimed_line(const std::string& where, const std::string& what);

}  // namespace txprop::drivers
