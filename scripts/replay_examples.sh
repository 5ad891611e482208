#!/usr/bin/env bash
# Replays every example scenario file of an isolation table (scripts/isolation_table.sh writes them to
# <out>/examples/) with `txprop replay` on the configured target it applies to (TXPROP_TARGETS), and checks that
# each shows its phenomenon again (the file's `expect:` line names it):
#   scripts/replay_examples.sh [examples-folder=docs/isolation-table/examples]
# A run is a schedule on a real engine: an example whose replay does not show the phenomenon is tried up to
# TXPROP_REPLAY_TRIES times (default 3) before it counts as not replayable. Exit status 1 if any is not.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-docs/isolation-table/examples}
txprop=${TXPROP_BUILD_DIR:-build}/txprop
[ -x "$txprop" ] || { echo "replay_examples: build $txprop first" >&2; exit 2; }
[ -d "$dir" ] || { echo "replay_examples: no folder $dir" >&2; exit 2; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
total=0
failed=0
for f in "$dir"/*.txn; do
  [ -e "$f" ] || continue
  total=$((total + 1))
  log=$logs/$(basename "$f").log
  tries=0
  ok=0
  while [ $tries -lt "${TXPROP_REPLAY_TRIES:-3}" ] && [ $ok -eq 0 ]; do
    tries=$((tries + 1))
    if "$txprop" replay "$f" > "$log" 2>&1; then ok=1; fi
  done
  if [ $ok -eq 1 ]; then
    echo "replayed $(basename "$f"): $(grep -m1 -- '-- expected' "$log" | sed 's/ (.*)//') (try $tries)"
  else
    failed=$((failed + 1))
    echo "NOT REPLAYED $(basename "$f") in $tries tries: $(grep -m1 'NOT MET' "$log" || tail -1 "$log")"
  fi
done
echo "replay_examples: $total example(s), $((total - failed)) replayed, $failed not"
[ $failed -eq 0 ]
