// What a test process created on its engines is removed when it ends, however it ends:
// - normally: each driver drops its database, schema or file in its destructor;
// - on SIGINT or SIGTERM: a signal thread runs the registered clean-ups (each on a fresh connection, bounded in
//   time), then the process dies of the signal as it would have;
// - after SIGKILL or a crash: the next run reclaims objects named for a process of this host that no longer exists.
// Names are txprop_<pid>_<host><random> (see unique_database_name()); objects of other hosts are never touched.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace txprop::drivers {

// Registers a clean-up to run on SIGINT/SIGTERM; returns an id for unregister_cleanup.
int register_cleanup(std::function<void()> cleanup);
void unregister_cleanup(int id);

// For a name txprop_<pid>_<host><random>: the pid, if the name was made on this host by a process that no longer
// exists. nullopt for anything else (another host, a live process, another naming scheme).
std::optional<long> left_by_dead_process(const std::string& name);

// Four hex digits naming this host (from its host name), part of every object name.
std::string host_marker();

// The line printed when an object is reclaimed.
std::string reclaimed_line(const std::string& where, const std::string& what, long pid);

}  // namespace txprop::drivers
