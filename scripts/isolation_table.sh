#!/usr/bin/env bash
# The isolation table of the configured engines, generated from campaigns (issue 13):
#   scripts/isolation_table.sh [cases=200] [out=isolation-table] [cells...]
# For every configured target x level (cells default: every AdyaDocumented case ctest would run), runs `cases`
# generated cases with every phenomenon looked for and classified (proscribed / documented / allowed by the level),
# then, for every phenomenon that occurred, a hunt run (TXPROP_ADYA_HUNT=<kind>) that shrinks its first occurrence
# to a scenario file. The hunt re-runs the cell's own seed (TXPROP_SEED), so it generates the same cases and meets the
# same first occurrence (a fresh seed missed rare phenomena: 7 cells of the first table had no example); only if the
# engine's run differs this time does it try fresh seeds with twice the cases (TXPROP_HUNT_TRIES tries in all,
# default 4). Every example is then replayed (scripts/replay_examples.sh). Writes <out>/isolation-table.md, <out>/isolation-table.html, <out>/examples/*.txn and the raw
# run records (<out>/runs.jsonl, <out>/hunts.jsonl). Uses TXPROP_TARGETS as set (eval "$(scripts/servers.sh start)").
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-200}
out=${2:-isolation-table}
shift $(( $# > 2 ? 2 : $# )) || true
build=${TXPROP_BUILD_DIR:-build}  # the build folder (default build/)
suites=$build/tests/txprop_property_suites
[ -x "$suites" ] || { echo "isolation_table: build $suites first" >&2; exit 2; }
mkdir -p "$out/examples" "$out/reports"
out=$(cd "$out" && pwd)
if [ $# -gt 0 ]; then cells=("$@"); else
  mapfile -t cells < <("$suites" --gtest_list_tests --gtest_filter='AdyaDocumented.*' | sed -n 's/^  check\/\([^ ]*\).*/\1/p')
fi
: > "$out/runs.jsonl"
: > "$out/hunts.jsonl"
start=$(date +%s)
for cell in "${cells[@]}"; do
  t0=$(date +%s)
  seed=${TXPROP_SEED:-$(( (RANDOM << 15) | RANDOM ))}
  echo "{\"type\":\"cell\",\"cell\":\"$cell\",\"seed\":$seed}" >> "$out/runs.jsonl"
  TXPROP_SEED=$seed TXPROP_SUMMARY_FILE="$out/runs.jsonl" TXPROP_CASES=$cases TXPROP_REPORT_DIR="$out/reports/$cell" \
    "$suites" --gtest_filter="AdyaDocumented.check/$cell" > "$out/reports/$cell.log" 2>&1 || true
  echo "{\"type\":\"cell-end\",\"cell\":\"$cell\",\"wall_seconds\":$(( $(date +%s) - t0 ))}" >> "$out/runs.jsonl"
  echo "isolation_table: $cell: $cases cases in $(( $(date +%s) - t0 )) s" >&2
  # Every kind that occurred in this cell: shrink its first occurrence.
  for kind in $(python3 scripts/isolation_table.py kinds "$out/runs.jsonl" "$cell"); do
    t0=$(date +%s)
    echo "{\"type\":\"cell\",\"cell\":\"$cell\",\"kind\":\"$kind\"}" >> "$out/hunts.jsonl"
    report=""
    tries=0
    while [ -z "$report" ] && [ $tries -lt "${TXPROP_HUNT_TRIES:-4}" ]; do
      if [ $tries -eq 0 ]; then hunt_seed=$seed; hunt_cases=$cases; else
        hunt_seed=$(( (RANDOM << 15) | RANDOM )); hunt_cases=$(( cases * 2 )); fi
      tries=$(( tries + 1 ))
      TXPROP_SEED=$hunt_seed TXPROP_SUMMARY_FILE="$out/hunts.jsonl" TXPROP_CASES=$hunt_cases TXPROP_ADYA_HUNT="$kind" \
        TXPROP_SHRINK_SECONDS=${TXPROP_SHRINK_SECONDS:-60} \
        TXPROP_REPORT_DIR="$out/reports/$cell-$kind" \
        "$suites" --gtest_filter="AdyaDocumented.check/$cell" > "$out/reports/$cell-$kind.$tries.log" 2>&1 || true
      report=$(python3 scripts/isolation_table.py report "$out/hunts.jsonl" "$cell" "$kind")
      # The report must be of the hunted kind: the scenario file's expectation names it.
      if [ -n "$report" ] && ! grep -qE "^adya .* $kind\$" "$report/scenario.txn" 2>/dev/null; then
        echo "isolation_table: $cell: the hunt for $kind reported something else ($report)" >&2
        report=""
      fi
    done
    if [ -n "$report" ] && [ -f "$report/scenario.txn" ]; then cp "$report/scenario.txn" "$out/examples/${cell}_$kind.txn"; fi
    echo "{\"type\":\"hunt\",\"cell\":\"$cell\",\"kind\":\"$kind\",\"tries\":$tries,\"seed\":$hunt_seed}" >> "$out/hunts.jsonl"
    echo "{\"type\":\"cell-end\",\"cell\":\"$cell\",\"kind\":\"$kind\",\"wall_seconds\":$(( $(date +%s) - t0 ))}" >> "$out/hunts.jsonl"
    echo "isolation_table: $cell: hunted $kind in $(( $(date +%s) - t0 )) s${report:+ -> examples/${cell}_$kind.txn}" >&2
  done
done
# Every example must replay: each is run with `txprop replay` on its target and must show its phenomenon again.
replayed=0
TXPROP_BUILD_DIR=$build scripts/replay_examples.sh "$out/examples" > "$out/replay.txt" || replayed=$?
cat "$out/replay.txt" >&2
python3 scripts/isolation_table.py table "$out" "$cases" "$(( $(date +%s) - start ))"
echo "isolation_table: $out/isolation-table.md and $out/isolation-table.html" >&2
exit $replayed
