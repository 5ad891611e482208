#!/usr/bin/env bash
# A campaign: many cases per property suite, with the figures each suite prints (cases, rate, documented
# behaviour, serial orders that were not the commit order, time to first finding).
#   scripts/campaign.sh [cases=2000] [gtest filter, default: every suite]
# Uses TXPROP_TARGETS as set (start servers with: eval "$(scripts/servers.sh start)").
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-2000}
filter=${2:-*}
[ -x build/tests/txprop_property_suites ] || scripts/setup.sh
echo "campaign: $cases cases per suite, filter '$filter', targets: ${TXPROP_TARGETS:-sqlite:}"
TXPROP_CASES=$cases build/tests/txprop_property_suites --gtest_filter="$filter" 2>&1 |
  grep -E '^\[txprop\] [^:]+: [0-9]+ cases in|^  (documented|non-commit)|^\[  FAILED  \]|found after|^report:' || true
