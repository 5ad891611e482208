#include "txprop/adya_levels.hpp"

#include "txprop/behaviours.hpp"

namespace txprop::adya {

std::string_view to_string(AdyaLevel level) {
  switch (level) {
    case AdyaLevel::PL1: return "PL-1";
    case AdyaLevel::PL2: return "PL-2";
    case AdyaLevel::PL2_99: return "PL-2.99";
    case AdyaLevel::SI: return "PL-SI";
    case AdyaLevel::PL3: return "PL-3";
  }
  return "?";
}

std::set<std::string> proscribed(AdyaLevel level) {
  switch (level) {
    case AdyaLevel::PL1: return {"G0"};
    case AdyaLevel::PL2: return {"G0", "G1a", "G1b", "G1c"};
    // Adya: PL-2.99 proscribes G1 and G2-item. Every item G-single is a G2-item; a predicate G-single is not.
    case AdyaLevel::PL2_99: return {"G0", "G1a", "G1b", "G1c", "G2-item"};
    case AdyaLevel::SI: return {"G0", "G1a", "G1b", "G1c", "G-SIa", "G-SIb"};
    case AdyaLevel::PL3: return {"G0", "G1a", "G1b", "G1c", "G-single", "G2-item", "G2"};
  }
  return {};
}

const std::set<std::string>& adya_kinds() {
  static const std::set<std::string> kinds(behaviour::kAdyaPhenomena.begin(), behaviour::kAdyaPhenomena.end());
  return kinds;
}

std::set<std::string> classes_of(std::string_view kind) {
  // G1c is "a cycle of dependency edges" in Adya: a ww-only cycle (G0) is one too.
  if (kind == "G0") return {"G0", "G1c"};
  if (kind == "G-single") return {"G-single", "G-SIb", "G2-item", "G2"};
  if (kind == "lost-update" || kind == "read-skew") return {std::string(kind), "G-single", "G-SIb", "G2-item", "G2"};
  if (kind == "G2-item") return {"G2-item", "G2"};
  // One predicate anti-dependency: a G-single (and so a G-SIb and a G2), but no item anti-dependency: not a G2-item.
  if (kind == "G-single-predicate") return {"G-single-predicate", "G-single", "G-SIb", "G2"};
  if (kind == "write-skew") return {"write-skew", "G2-item", "G2"};
  return {std::string(kind)};
}

bool is_proscribed(const std::set<std::string>& phenomena, std::string_view kind) {
  if (kind == "impossible-history") return true;
  for (const std::string& c : classes_of(kind))
    if (phenomena.count(c) != 0) return true;
  return false;
}

bool is_proscribed(AdyaLevel level, std::string_view kind) { return is_proscribed(proscribed(level), kind); }

}  // namespace txprop::adya
