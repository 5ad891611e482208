// WSS's expectations come from the engine profile's documented behaviour (write-specific serializability, whether
// reads are serializable, whether the serial order is the commit order), each with its source.
#include "txprop/engine.hpp"
#include "txprop/wss.hpp"

namespace txprop {

WssProfile wss_profile(const TargetConfig& target, IsolationLevel level) {
  const DocumentedBehaviour d = target.profile().documented(level, target);
  WssProfile p;
  p.must_hold = d.write_serializable;
  p.any_serial_order = d.any_serial_order;
  p.compare_reads = d.reads_serializable;
  p.source = d.serializability_source;
  return p;
}

}  // namespace txprop
