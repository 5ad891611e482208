#!/usr/bin/env bash
# A campaign: many cases per property suite, with the figures each suite prints (cases, rate, documented
# behaviour, serial orders that were not the commit order, time to first finding).
#   scripts/campaign.sh [cases=2000] [gtest filter, default: every suite]
#   scripts/campaign.sh troc [cases=1000] [seed=1]
#     Troc's campaign (issue 12): per configured target and level (and mixed levels), the passes, each finding kind
#     (failing / documented), statements that waited where the lock model needs no wait, the undecided share and the
#     rule behind each undecided case, Troc cases per second (tests/bench/troc_bench.cpp), and the share of cases using
#     each richer statement form (cases are generated as the Troc suite generates them: rich statements, joined writes).
#   scripts/campaign.sh sdg [cases=1000]
#       the SDG campaign of issue 11: SQLite, PostgreSQL RC/RR/SER, MariaDB RC and SER, and MariaDB RR with
#       innodb_snapshot_isolation=ON (the levels where the profile says Assumption A3 holds, and the one where it says
#       it does not with snapshot isolation on); per suite: cases, share re-planned (blocking scheduling), share
#       decycled, statements removed per case, share without a verdict, and the share of cases using each richer form.
# Uses TXPROP_TARGETS as set (start servers with: eval "$(scripts/servers.sh start)"); BUILD_DIR (or TXPROP_BUILD_DIR)
# picks the build directory (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-${TXPROP_BUILD_DIR:-build}}
if [ "${1:-}" = troc ]; then
  cases=${2:-1000}
  seed=${3:-1}
  [ -x "$build/tests/bench/txprop_troc_bench" ] || cmake --build "$build" --target txprop_troc_bench
  echo "campaign: troc, $cases cases per target and level, seed $seed, targets: $("$build/txprop" targets 2>&1)"
  TXPROP_TROC_SHOW=${TXPROP_TROC_SHOW:-1} "$build/tests/bench/txprop_troc_bench" "$cases" "$seed"
  exit
fi
if [ "${1:-}" = sdg ]; then
  cases=${2:-1000}
  filter='Sdg*sqlite_serializable:Sdg*postgresql*:Sdg*mariadb_read_committed:Sdg*mariadb_serializable:Sdg*mariadb_si_repeatable_read'
else
  cases=${1:-2000}
  filter=${2:-*}
fi
[ -x "$build"/tests/txprop_property_suites ] || scripts/setup.sh
echo "campaign: $cases cases per suite, filter '$filter', targets: $("$build/txprop" targets 2>&1)"
if [ "${1:-}" != sdg ]; then
  TXPROP_CASES=$cases "$build"/tests/txprop_property_suites --gtest_filter="$filter" 2>&1 |
    grep -E '^\[txprop\] [^:]+: [0-9]+ cases in|^  (documented|non-commit)|^\[  FAILED  \]|found after|^report:' || true
  exit 0
fi
# The suite prints "[txprop] Sdg/<target>: N cases in ..., [K without a verdict]" and then "  <tag>: n case(s)" per tag
# (sdg-replanned, sdg-decycled, "sdg-statements-removed (total)" once per removed statement, "form: ..." per form).
TXPROP_CASES=$cases "$build"/tests/txprop_property_suites --gtest_filter="$filter" 2>&1 | awk '
  function flush() {
    if (suite == "") return
    printf "%s: %d cases, %s; re-planned %.1f%%, decycled %.1f%%, %.3f statements removed per case, without a verdict %.1f%%\n",
      suite, n, verdict, 100 * tag["sdg-replanned"] / n, 100 * tag["sdg-decycled"] / n,
      tag["sdg-statements-removed (total)"] / n, 100 * none / n
    forms = ""
    for (t in tag) if (t ~ /^form: /) forms = forms sprintf("    %-40s %5.1f%%\n", substr(t, 7), 100 * tag[t] / n)
    printf "%s", forms
    for (t in doc) printf "  %s\n", doc[t]
    suite = ""; delete tag; delete doc
  }
  /^\[txprop\] Sdg\/[^:]+: [0-9]+ cases in/ {
    flush()
    suite = $2; sub(/:$/, "", suite); n = $3
    none = 0
    if (match($0, /[0-9]+ without a verdict/)) none = substr($0, RSTART, RLENGTH) + 0
    verdict = ($0 ~ /no violation/) ? "no violation" : "VIOLATION"
    next
  }
  suite != "" && /^  documented behaviour/ { doc[length(doc)] = $0; next }
  suite != "" && /^  [^ ].*: [0-9]+ case\(s\)$/ {
    line = substr($0, 3); k = line; sub(/: [0-9]+ case\(s\)$/, "", k)
    v = line; sub(/^.*: /, "", v); sub(/ case\(s\)$/, "", v)
    tag[k] = v + 0; next
  }
  /^\[  FAILED  \]|found after|^report:/ { print }
  END { flush() }'
