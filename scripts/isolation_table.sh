#!/usr/bin/env bash
# The isolation table of the configured engines, generated from campaigns (issue 13):
#   scripts/isolation_table.sh [cases=200] [out=isolation-table] [cells...]
# For every configured target x level (cells default: every AdyaDocumented case ctest would run), runs `cases`
# generated cases with every phenomenon looked for and classified (proscribed / documented / allowed by the level),
# then, for every phenomenon that occurred, a hunt run (TXPROP_ADYA_HUNT=<kind>) that shrinks its first occurrence
# to a scenario file. Writes <out>/isolation-table.md, <out>/isolation-table.html, <out>/examples/*.txn and the raw
# run records (<out>/runs.jsonl, <out>/hunts.jsonl). Uses TXPROP_TARGETS as set (eval "$(scripts/servers.sh start)").
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-200}
out=${2:-isolation-table}
shift $(( $# > 2 ? 2 : $# )) || true
suites=build/tests/txprop_property_suites
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
  echo "{\"type\":\"cell\",\"cell\":\"$cell\"}" >> "$out/runs.jsonl"
  TXPROP_SUMMARY_FILE="$out/runs.jsonl" TXPROP_CASES=$cases TXPROP_REPORT_DIR="$out/reports/$cell" \
    "$suites" --gtest_filter="AdyaDocumented.check/$cell" > "$out/reports/$cell.log" 2>&1 || true
  echo "{\"type\":\"cell-end\",\"cell\":\"$cell\",\"wall_seconds\":$(( $(date +%s) - t0 ))}" >> "$out/runs.jsonl"
  echo "isolation_table: $cell: $cases cases in $(( $(date +%s) - t0 )) s" >&2
  # Every kind that occurred in this cell: shrink its first occurrence.
  for kind in $(python3 scripts/isolation_table.py kinds "$out/runs.jsonl" "$cell"); do
    t0=$(date +%s)
    echo "{\"type\":\"cell\",\"cell\":\"$cell\",\"kind\":\"$kind\"}" >> "$out/hunts.jsonl"
    TXPROP_SUMMARY_FILE="$out/hunts.jsonl" TXPROP_CASES=$cases TXPROP_ADYA_HUNT="$kind" \
      TXPROP_SHRINK_SECONDS=${TXPROP_SHRINK_SECONDS:-60} \
      TXPROP_REPORT_DIR="$out/reports/$cell-$kind" \
      "$suites" --gtest_filter="AdyaDocumented.check/$cell" > "$out/reports/$cell-$kind.log" 2>&1 || true
    report=$(python3 scripts/isolation_table.py report "$out/hunts.jsonl" "$cell" "$kind")
    if [ -n "$report" ] && [ -f "$report/scenario.txn" ]; then cp "$report/scenario.txn" "$out/examples/${cell}_$kind.txn"; fi
    echo "{\"type\":\"cell-end\",\"cell\":\"$cell\",\"kind\":\"$kind\",\"wall_seconds\":$(( $(date +%s) - t0 ))}" >> "$out/hunts.jsonl"
    echo "isolation_table: $cell: hunted $kind in $(( $(date +%s) - t0 )) s${report:+ -> examples/${cell}_$kind.txn}" >&2
  done
done
python3 scripts/isolation_table.py table "$out" "$cases" "$(( $(date +%s) - start ))"
echo "isolation_table: $out/isolation-table.md and $out/isolation-table.html" >&2
