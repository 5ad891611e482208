#!/usr/bin/env bash
# Shards across machines (framework/gtest/shards.hpp): four shards of one campaign run as four processes, as four CI
# jobs would, against one server set (TXPROP_TARGETS; embedded SQLite when unset). Together they run the same number
# of cases as the campaign unsharded, every shard with a seed of its own; `txprop summary` merges their record files
# into one table and one JUnit file, and names a shard whose file is missing.
#   shards_check.sh <txprop_property_suites> <txprop> [suite filter, default Wss.*]
set -uo pipefail
suites=$1
txprop=$2
filter=${3:-Wss.*}
export TXPROP_TARGETS=${TXPROP_TARGETS:-sqlite:}
export TXPROP_CASES=${TXPROP_SHARD_CHECK_CASES:-30} TXPROP_SEED=20261126
unset GTEST_TOTAL_SHARDS GTEST_SHARD_INDEX TXPROP_PROGRESS
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "shards_check: FAILED: $*"; for f in "$dir"/*.out "$dir"/*.txt; do [ -f "$f" ] && { echo "== $f"; tail -n 30 "$f"; }; done; exit 1; }
# "TOTAL: 3 suite runs, 90 cases, ..." -> "3 90"
totals() { sed -nE 's/^TOTAL: ([0-9]+) suite runs, ([0-9]+) cases.*/\1 \2/p' "$1"; }

TXPROP_SUMMARY_FILE="$dir/whole.jsonl" TXPROP_REPORT_DIR="$dir/reports" "$suites" --gtest_filter="$filter" \
  >"$dir/whole.out" 2>&1 || fail "the unsharded run failed"
pids=()
for i in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i TXPROP_SUMMARY_FILE="$dir/shard$i.jsonl" TXPROP_REPORT_DIR="$dir/reports$i" \
    "$suites" --gtest_filter="$filter" >"$dir/shard$i.out" 2>&1 &
  pids+=($!)
done
for i in 0 1 2 3; do wait "${pids[$i]}" || fail "shard $i failed"; done

"$txprop" summary "$dir/whole.jsonl" >"$dir/whole.txt" 2>&1 || fail "summary of the unsharded run failed"
"$txprop" summary "$dir"/shard{0,1,2,3}.jsonl --junit "$dir/merged.xml" >"$dir/merged.txt" 2>&1 ||
  fail "summary of the four shards failed"
whole=$(totals "$dir/whole.txt")
merged=$(totals "$dir/merged.txt")
[ -n "$whole" ] || fail "no TOTAL line for the unsharded run"
[ "$whole" = "$merged" ] || fail "suite runs and cases: unsharded '$whole', four shards merged '$merged'"
suite_runs=${whole% *}
[ "$(grep -c '; shards 4 of 4' "$dir/merged.txt")" = "$suite_runs" ] || fail "not every suite row merges 4 of 4 shards"
# Every suite ran in every shard, each shard with a seed no other shard used.
for f in "$dir"/shard{0,1,2,3}.jsonl; do
  [ "$(grep -c '"type":"property"' "$f")" = "$suite_runs" ] || fail "$f does not hold one record per suite"
done
seeds=$(cat "$dir"/shard*.jsonl | sed -nE 's/.*"suite":"([^"]*)","target":"([^"]*)".*"level":"([^"]*)".*"seed":"([0-9]+)".*/\1 \2 \3 \4/p')
[ "$(echo "$seeds" | wc -l)" = "$((4 * suite_runs))" ] || fail "a shard record without a seed"
[ "$(echo "$seeds" | sort -u | wc -l)" = "$((4 * suite_runs))" ] || fail "a seed used twice: $seeds"
[ "$(echo "$seeds" | awk '{print $4}' | sort -u | wc -l)" = 4 ] || fail "not four distinct shard seeds: $seeds"
grep -q "tests=\"$suite_runs\" failures=\"0\"" "$dir/merged.xml" || fail "the merged JUnit file does not hold $suite_runs passing tests"
grep -q '<property name="shards" value="4 of 4"/>' "$dir/merged.xml" || fail "the merged JUnit file does not name the shards"

# A shard's file missing (a CI job that never reported): named, and the summary fails.
"$txprop" summary "$dir"/shard{0,1,3}.jsonl --junit "$dir/missing.xml" >"$dir/missing.txt" 2>&1 &&
  fail "summary with shard 2 missing exited 0"
grep -q 'MISSING SHARD: shard 2/4 left no record of' "$dir/missing.txt" || fail "summary does not name shard 2/4"
grep -q 'shard 2/4 left no record' "$dir/missing.xml" || fail "the JUnit file does not name shard 2/4"
echo "shards_check: ${whole#* } cases in $suite_runs suite(s), unsharded and as 4 shards; seeds distinct; missing shard named"
