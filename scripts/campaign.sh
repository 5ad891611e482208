#!/usr/bin/env bash
# A campaign: many cases per property suite, with the figures each suite prints (cases, rate, documented
# behaviour, serial orders that were not the commit order, time to first finding).
#   scripts/campaign.sh [cases=2000] [gtest filter, default: every suite]
#   scripts/campaign.sh troc [cases=1000] [seed=1]
#     Troc's campaign (issue 12): per configured target and level (and mixed levels), the passes, each finding kind
#     (failing / documented), statements that waited where the lock model needs no wait, the undecided share and the
#     rule behind each undecided case, and Troc cases per second (tests/bench/troc_bench.cpp).
# Uses TXPROP_TARGETS as set (start servers with: eval "$(scripts/servers.sh start)"); BUILD_DIR (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
if [ "${1:-}" = troc ]; then
  cases=${2:-1000}
  seed=${3:-1}
  [ -x "$build/tests/bench/txprop_troc_bench" ] || cmake --build "$build" --target txprop_troc_bench
  echo "campaign: troc, $cases cases per target and level, seed $seed, targets: ${TXPROP_TARGETS:-sqlite:}"
  TXPROP_TROC_SHOW=${TXPROP_TROC_SHOW:-1} "$build/tests/bench/txprop_troc_bench" "$cases" "$seed"
  exit
fi
cases=${1:-2000}
filter=${2:-*}
[ -x "$build/tests/txprop_property_suites" ] || scripts/setup.sh
echo "campaign: $cases cases per suite, filter '$filter', targets: ${TXPROP_TARGETS:-sqlite:}"
TXPROP_CASES=$cases "$build/tests/txprop_property_suites" --gtest_filter="$filter" 2>&1 |
  grep -E '^\[txprop\] [^:]+: [0-9]+ cases in|^  (documented|non-commit)|^\[  FAILED  \]|found after|^report:' || true
