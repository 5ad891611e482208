// Random choices drawn from a RapidCheck Random, so generation is deterministic for a given seed and size
// (RC_PARAMS="reproduce=..." replays it).
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <vector>

namespace txprop::gen {

class Draw {
 public:
  explicit Draw(rc::Random random) : random_(std::move(random)) {}

  std::uint64_t next() { return random_.next(); }
  // Uniform in [lo, hi].
  int in_range(int lo, int hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(double p) { return static_cast<double>(next() % 1000000) < p * 1000000.0; }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(in_range(0, static_cast<int>(v.size()) - 1))];
  }
  // An index drawn with the given weights (all >= 0, some > 0).
  std::size_t weighted(const std::vector<int>& weights) {
    int total = 0;
    for (int w : weights) total += w;
    int r = in_range(0, total - 1);
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (r < weights[i]) return i;
      r -= weights[i];
    }
    return weights.size() - 1;
  }

 private:
  rc::Random random_;
};

}  // namespace txprop::gen
