#include "result_summary.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "shards.hpp"
#include "workers.hpp"
#include "txprop/sql.hpp"

namespace txprop {

std::string PropertyResult::summary() const {
  std::string out = fmt::format("{} cases in {:.1f} s ({:.1f} cases/s)", cases, seconds, cases / std::max(1e-9, seconds));
  if (inconclusive) out += fmt::format(", {} without a verdict", inconclusive);
  for (const std::string& c : transient_crashes) out += "\n  crash that did not reproduce on a re-run: " + c;
  for (const auto& [standing, kinds] : counted)
    for (const auto& [kind, n] : kinds)
      out += fmt::format("\n  {} in {} case(s): {} ({})",
                         standing == Standing::Allowed ? "allowed by the level" : "documented behaviour", n.cases, kind,
                         n.source);
  for (const auto& [tag, n] : tags) out += fmt::format("\n  {}: {} case(s)", tag, n);
  return out;
}

run_summary::Record suite_record(const std::string& property, const SuiteParam& p, const std::string& status,
                                 const PropertyResult* r, const std::string& message, const std::string& server) {
  run_summary::Record rec;
  rec.add("type", "property").add("suite", property).add("target", p.config.name.empty() ? "?" : p.config.name);
  rec.add("uri", p.config.uri.empty() ? std::string() : p.config.masked_uri());
  if (!server.empty()) rec.add("server", server);
  rec.add("level", p.config_error.empty() ? short_name(p.level) : std::string("-"));
  rec.add("status", status);
  shards::add_to_record(rec, r ? r->seed : 0);
  if (r) {
    rec.add("cases", r->cases).add("seconds", r->seconds).add("reset_seconds", r->reset_seconds);
    rec.add("inconclusive", r->inconclusive);
    rec.add("shrink_steps", r->shrink_steps).add("shrink_attempts", r->shrink_attempts);
    std::string tags;
    for (const auto& [tag, n] : r->tags)
      tags += (tags.empty() ? "" : ",") + run_summary::Record().add("tag", tag).add("cases", n).json();
    for (const Standing standing : {Standing::Documented, Standing::Allowed}) {
      std::string counted;
      if (const auto it = r->counted.find(standing); it != r->counted.end())
        for (const auto& [kind, n] : it->second) {
          run_summary::Record d;
          d.add("kind", kind).add("cases", n.cases).add("source", n.source);
          counted += (counted.empty() ? "" : ",") + d.json();
        }
      rec.add_raw(std::string(to_string(standing)), "[" + counted + "]");
    }
    rec.add_raw("tags", "[" + tags + "]");
    if (r->verdict) rec.add("finding", r->verdict->summary());
    if (!r->report_dir.empty()) rec.add("report", r->report_dir);
    // A worker's whole message, for the suite's process to print (workers.hpp).
    if (workers::is_worker() && !r->message.empty()) rec.add("details", r->message);
    // And a target it lost, so that the suite's process ends later suites on it with one line (property_suite.cpp).
    if (workers::is_worker() && !r->target_lost.empty()) rec.add("target_lost", r->target_lost);
  }
  if (!message.empty()) rec.add("message", message);
  return rec;
}

}  // namespace txprop
