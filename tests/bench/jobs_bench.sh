#!/usr/bin/env bash
# Parallel workers (TXPROP_JOBS, framework/gtest/workers.hpp): cases per second of the WSS, Troc, SDG and Atomicity
# suites per engine at several job counts, in one run, with the ratio to one job, the share of cases without a
# verdict and how each suite ended (a hang or a crash fails the suite: "failed" in the last column). Each figure is
# one run of the shipped suite program as a user runs it (the suite's record, TXPROP_SUMMARY_FILE: cases and the
# suite's wall time, which includes starting the workers and creating their databases). The reset share is the time
# the processes spent resetting the database (the record's reset_seconds, summed over the workers) of their time
# (jobs x the wall time, so starting the workers counts against it). Last, the goals of issue 22 beside the best
# WSS rate per engine: MariaDB >= 110 cases/s, PostgreSQL >= 150, SQLite >= 1,000, reset <= 20% of a case.
#
#   eval "$(scripts/servers.sh start)"; tests/bench/jobs_bench.sh [build dir]
#
# BENCH_CASES (default 100) cases per suite, BENCH_JOBS (default "1 2 4 8"), BENCH_PROPERTIES (default
# "Wss Troc Sdg Atomicity"), BENCH_LEVEL (default serializable), BENCH_SEED (default 1). Engines: the first
# SQLite, PostgreSQL and MariaDB target of TXPROP_TARGETS (SQLite alone when it is unset). The load average is printed
# before and after: on a shared machine the figures move with it.
set -euo pipefail
build=${1:-build}
bin="$build/tests/txprop_property_suites"
[ -x "$bin" ] || { echo "jobs_bench: $bin not found (build first)" >&2; exit 2; }
cases=${BENCH_CASES:-100}
jobs_list=${BENCH_JOBS:-1 2 4 8}
properties=${BENCH_PROPERTIES:-Wss Troc Sdg Atomicity}
level=${BENCH_LEVEL:-serializable}
seed=${BENCH_SEED:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The suites of the first target of each engine at the level, as the program lists them ("  check/<target>_<level>").
listed=$("$bin" --gtest_list_tests --gtest_filter="Wss.*" | sed -n 's/^  check\/\([^ ]*\).*/\1/p')
suites=()
for engine in sqlite postgresql mariadb; do
  s=$(grep -E "^${engine}[a-z0-9_]*_${level}\$" <<<"$listed" | grep -v -E "_si_|snapshot|_delete_" | head -1 || true)
  [ -n "$s" ] && suites+=("$s") || echo "jobs_bench: no ${engine} target at ${level} in TXPROP_TARGETS: skipped"
done

field() {  # field <name> <record>: the first field of that name in a one-line JSON record (the suite's own figures
  # come before the lists of findings and tags, whose entries have "cases" too)
  grep -o "\"$1\":\"\{0,1\}[^\",}]*" <<<"$2" | head -1 | sed 's/.*:"\{0,1\}//'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
printf '%-28s %-10s %4s %6s %8s %9s %7s %6s %10s %s\n' suite property jobs cases seconds "cases/s" ratio reset no-verdict status
declare -A best_wss best_reset
for suite in "${suites[@]}"; do
  for property in $properties; do
    base=""
    for jobs in $jobs_list; do
      rec="$tmp/records-$suite-$property-$jobs.jsonl"
      TXPROP_JOBS=$jobs TXPROP_CASES=$cases TXPROP_SEED=$seed TXPROP_SUMMARY_FILE=$rec \
        TXPROP_REPORT_DIR="$tmp/reports" "$bin" --gtest_filter="$property.check/$suite" >"$tmp/out" 2>&1 || true
      line=$(tail -1 "$rec" 2>/dev/null || true)
      if [ -z "$line" ]; then
        printf '%-28s %-10s %4s  no record: %s\n' "$suite" "$property" "$jobs" "$(grep -m1 -i -E 'fail|error' "$tmp/out" || true)"
        continue
      fi
      n=$(field cases "$line"); s=$(field seconds "$line"); nv=$(field inconclusive "$line"); st=$(field status "$line")
      rs=$(field reset_seconds "$line")
      rate=$(awk -v n="$n" -v s="$s" 'BEGIN { printf "%.1f", (s > 0 ? n / s : 0) }')
      [ -z "$base" ] && base=$rate
      ratio=$(awk -v r="$rate" -v b="$base" 'BEGIN { printf "%.2f", (b > 0 ? r / b : 0) }')
      share=$(awk -v v="$nv" -v n="$n" 'BEGIN { printf "%.1f%%", (n > 0 ? 100 * v / n : 0) }')
      reset=$(awk -v r="${rs:-0}" -v s="$s" -v j="$jobs" -v n="$n" \
        'BEGIN { w = (j < n ? j : n); printf "%.0f%%", (s > 0 && w > 0 ? 100 * r / (s * w) : 0) }')
      printf '%-28s %-10s %4s %6s %8.2f %9s %7s %6s %10s %s\n' "$suite" "$property" "$jobs" "$n" "$s" "$rate" "$ratio" \
        "$reset" "$share" "$st"
      if [ "$property" = Wss ] && awk -v r="$rate" -v b="${best_wss[$suite]:-0}" 'BEGIN { exit !(r > b) }'; then
        best_wss[$suite]=$rate best_reset[$suite]=$reset
      fi
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
for suite in "${!best_wss[@]}"; do
  case $suite in sqlite*) goal=1000 ;; postgresql*) goal=150 ;; *) goal=110 ;; esac
  echo "goal: $suite WSS best ${best_wss[$suite]} cases/s (goal >= $goal), reset ${best_reset[$suite]} there (goal <= 20%)"
done
