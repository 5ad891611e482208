#!/usr/bin/env bash
# Parallel workers in one suite (TXPROP_JOBS, framework/gtest/workers.hpp), against TXPROP_TARGETS (embedded SQLite
# when unset):
#  - a passing suite run with 3 workers runs the cases of one process, leaves one record, and every worker a seed of
#    its own; 2 shards (GTEST_TOTAL_SHARDS) of 2 workers each run them too;
#  - a failing property: the first failure stops the other workers (the union of cases stays small), is shrunk and
#    reported once, and the printed command for the worker that found it reproduces the same case alone
#    (TXPROP_JOBS=1), as does the RC_PARAMS replay line whatever TXPROP_JOBS says;
#  - a bad TXPROP_JOBS is one line naming it.
#   jobs_check.sh <txprop_property_suites> <txprop_selftest_props> <txprop> [suite filter, default Wss.*]
set -uo pipefail
suites=$1
selftest=$2
txprop=$3
filter=${4:-Wss.*}
export TXPROP_TARGETS=${TXPROP_TARGETS:-sqlite:}
unset GTEST_TOTAL_SHARDS GTEST_SHARD_INDEX TXPROP_PROGRESS TXPROP_SUMMARY_FILE RC_PARAMS TXPROP_SELFTEST_FAIL TXPROP_JOBS
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "jobs_check: FAILED: $*"; for f in "$dir"/*.out "$dir"/*.txt; do [ -f "$f" ] && { echo "== $f"; tail -n 40 "$f"; }; done; exit 1; }
totals() { sed -nE 's/^TOTAL: ([0-9]+) suite runs, ([0-9]+) cases.*/\1 \2/p' "$1"; }

# 1. Passing: the same cases with one process and with three workers.
export TXPROP_CASES=30 TXPROP_SEED=20261126
for jobs in 1 3; do
  TXPROP_JOBS=$jobs TXPROP_SUMMARY_FILE="$dir/jobs$jobs.jsonl" TXPROP_REPORT_DIR="$dir/reports" \
    "$suites" --gtest_filter="$filter" >"$dir/jobs$jobs.out" 2>&1 || fail "the run with TXPROP_JOBS=$jobs failed"
  "$txprop" summary "$dir/jobs$jobs.jsonl" >"$dir/jobs$jobs.txt" 2>&1 || fail "summary of TXPROP_JOBS=$jobs failed"
done
one=$(totals "$dir/jobs1.txt")
three=$(totals "$dir/jobs3.txt")
[ -n "$one" ] || fail "no TOTAL line"
[ "$one" = "$three" ] || fail "suite runs and cases: TXPROP_JOBS=1 '$one', TXPROP_JOBS=3 '$three'"
grep -q "worker" "$dir/jobs1.out" && fail "TXPROP_JOBS=1 started workers"
# 2 shards x 2 workers: the campaign's cases again.
pids=()
for i in 0 1; do
  TXPROP_JOBS=2 GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$i TXPROP_SUMMARY_FILE="$dir/shard$i.jsonl" \
    TXPROP_REPORT_DIR="$dir/reports" "$suites" --gtest_filter="$filter" >"$dir/shard$i.out" 2>&1 &
  pids+=($!)
done
for i in 0 1; do wait "${pids[$i]}" || fail "shard $i with 2 workers failed"; done
"$txprop" summary "$dir"/shard{0,1}.jsonl >"$dir/shards.txt" 2>&1 || fail "summary of 2 shards x 2 workers failed"
[ "$(totals "$dir/shards.txt")" = "$one" ] || fail "2 shards x 2 workers: '$(totals "$dir/shards.txt")', one process: '$one'"

# 2. Failing: every case fails (tests/selftest). 60 cases, 20 per worker; the first failure stops the others.
export TXPROP_TARGETS=sqlite:
TXPROP_JOBS=3 TXPROP_CASES=60 TXPROP_SHRINK_ATTEMPTS=3 TXPROP_SELFTEST_FAIL=assert TXPROP_REPORT_DIR="$dir/reports" \
  "$selftest" >"$dir/fail.out" 2>&1 && fail "a failing property passed with TXPROP_JOBS=3"
grep -q '^report: ' "$dir/fail.out" || fail "no report line"
cases=$(sed -nE 's/^([0-9]+) cases in [0-9.]+ s.*/\1/p' "$dir/fail.out")
[ -n "$cases" ] && [ "$cases" -le 3 ] || fail "the other workers did not stop: $cases case(s) of 60"
replay=$(grep -m1 '^replay: ' "$dir/fail.out")
alone=$(grep -m1 -A1 '^found by worker ' "$dir/fail.out" | tail -1)
[[ "$alone" == *"TXPROP_JOBS=1 TXPROP_SEED="*"--gtest_filter=SelfTest.check/sqlite_serializable" ]] ||
  fail "no command for the worker alone: '$alone'"
env TXPROP_SHRINK_ATTEMPTS=3 TXPROP_SELFTEST_FAIL=assert TXPROP_REPORT_DIR="$dir/reports" $alone >"$dir/alone.out" 2>&1 &&
  fail "the worker's command alone passed"
[ "$(grep -m1 '^replay: ' "$dir/alone.out")" = "$replay" ] || fail "the worker alone shrank to another case"
rc_params=${replay#replay: RC_PARAMS=}
RC_PARAMS=${rc_params//\"/} TXPROP_JOBS=3 TXPROP_SELFTEST_FAIL=assert TXPROP_REPORT_DIR="$dir/reports" \
  "$selftest" >"$dir/replay.out" 2>&1 && fail "the replay passed"
grep -q 'found by worker' "$dir/replay.out" && fail "a replay (RC_PARAMS=reproduce) started workers"
grep -q 'shrunk in 0 step' "$dir/replay.out" || fail "the replay did not reproduce the shrunk case"

# 3. A bad value: one line naming the variable.
TXPROP_JOBS=0 "$selftest" >"$dir/bad.out" 2>&1 && fail "TXPROP_JOBS=0 passed"
grep -q 'TXPROP_JOBS' "$dir/bad.out" || fail "TXPROP_JOBS=0 does not name the variable"
echo "jobs_check: ${one#* } cases in ${one% *} suite(s) with 1 and 3 workers and as 2 shards x 2 workers;" \
     "a failure stopped the workers at $cases case(s), reproduced alone and replayed"
