#!/usr/bin/env bash
# The main job: build, then run every property suite and every scenario file on the embedded SQLite target and
# every target named in TXPROP_TARGETS (connection URIs, see README), and print what was checked: per suite,
# target and level the cases, seconds, findings the engine documents (kind, count, source), failures with their
# report folder, cases without a verdict, and a total line. The same as JUnit XML in build/txprop-main/.
# TXPROP_CASES sets the cases per suite (default 100); arguments go to ctest (e.g. -j 2, -R Wss).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scripts/setup.sh
targets=${TXPROP_TARGETS:-}
case " $targets " in
  *" sqlite:"*) ;;                     # an SQLite target is configured already
  *) targets="sqlite: $targets" ;;
esac
targets=$(echo $targets)
out=$root/build/txprop-main
rm -rf "$out"
mkdir -p "$out"
export TXPROP_TARGETS=$targets
export TXPROP_SUMMARY_FILE=$out/records.jsonl
export TXPROP_REPORT_DIR=${TXPROP_REPORT_DIR:-$root/txprop-reports}
# ctest shows a test's output when it ends; on a terminal, the suites' progress lines (cases, documented findings,
# shrink steps, every 5 s) are shown as they come.
export TXPROP_PROGRESS=$out/progress.log
: >"$TXPROP_PROGRESS"
tail_pid=
if [ -t 1 ]; then
  tail -n 0 -F "$TXPROP_PROGRESS" 2>/dev/null &
  tail_pid=$!
  trap '[ -n "$tail_pid" ] && kill "$tail_pid" 2>/dev/null' EXIT
fi
masked=$(echo "$targets" | sed -E 's#://([^:/@ ]*):[^@/ ]*@#://\1:***@#g')
echo "main.sh: targets: $masked; cases per suite: ${TXPROP_CASES:-100 (TXPROP_CASES)}"
start=$(date +%s)
set +e
(cd build && ctest -L '^(property|scenario)$' --output-on-failure --output-junit "$out/ctest-junit.xml" "$@") |
  tee "$out/ctest.log"
ctest_status=${PIPESTATUS[0]}
if [ -n "$tail_pid" ]; then kill "$tail_pid" 2>/dev/null; wait "$tail_pid" 2>/dev/null; tail_pid=; fi
build/txprop summary "$out/records.jsonl" --junit "$out/junit.xml" --title "txprop main job"
summary_status=$?
set -e
echo "main.sh: wall time $(( $(date +%s) - start )) s; records $out/records.jsonl; JUnit $out/junit.xml" \
     "(suites with their figures) and $out/ctest-junit.xml (ctest)"
if [ "$ctest_status" != 0 ]; then
  echo "main.sh: ctest failed:"
  sed -n '/The following tests FAILED/,$p' "$out/ctest.log"
fi
[ "$ctest_status" = 0 ] && [ "$summary_status" = 0 ]
