#!/usr/bin/env bash
# Extending txprop from outside: installs the txprop build in $1 to a temporary prefix, builds this project against
# it with find_package(txprop), and, on the PostgreSQL server named in TXPROP_TARGETS (through the fourth engine's
# own scheme, pgflavour://):
#   1. runs the fifth oracle's suite at SERIALIZABLE: it passes, and the cases its oracle refuses are never run;
#   2. runs it at READ COMMITTED: the oracle finds a non-repeatable read, shrinks it and writes a report folder;
#   3. replays the report's scenario.txn with the project's own txprop command and --property stable-reads: it shows
#      the finding again and exits 1.
# Without a PostgreSQL target it is skipped (exit 77), or fails when CI is set.
set -euo pipefail
build_tree=$1
here=$(cd "$(dirname "$0")" && pwd)
pg=""
for uri in ${TXPROP_TARGETS:-}; do
  case "$uri" in postgresql://*|postgres://*) pg=$uri; break ;; esac
done
if [ -z "$pg" ]; then
  if [ -n "${CI:-}" ] && [ "${CI:-}" != 0 ] && [ "${CI:-}" != false ]; then
    echo "extension: no postgresql:// target in TXPROP_TARGETS (CI is set: a configured engine is required)"; exit 1
  fi
  echo "extension: skipped: no postgresql:// target in TXPROP_TARGETS"; exit 77
fi
flavour="pgflavour://${pg#*://}"
flavour=${flavour%%\?*}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "extension: FAILED: $*"; exit 1; }

cmake --install "$build_tree" --prefix "$work/prefix" >/dev/null
cmake -S "$here" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/build" -j 2 >/dev/null
cd "$work/build"

echo "== 1. StableReads on $flavour at SERIALIZABLE"
TXPROP_TARGETS="$flavour?levels=ser" TXPROP_CASES=40 ctest -V --output-on-failure -R StableReads >"$work/ser.log" 2>&1 ||
  { cat "$work/ser.log"; fail "the suite failed at SERIALIZABLE"; }
grep -q "StableReads.check/pgflavour_serializable" "$work/ser.log" || { cat "$work/ser.log"; fail "no pgflavour test ran"; }
grep -E "tests passed" "$work/ser.log"
# The oracle refuses cases whose first read locks (cannot_judge); its judge() throws on one, so the suite passing
# with refusals counted shows that a property suite never runs a case its oracle refuses.
grep -q "no verdict: T's first SELECT is a locking read" "$work/ser.log" ||
  { cat "$work/ser.log"; fail "no case was refused: the refusal path was not exercised"; }

echo "== 2. StableReads on $flavour at READ COMMITTED"
if TXPROP_TARGETS="$flavour?levels=rc" TXPROP_CASES=500 TXPROP_SEED=7 TXPROP_REPORT_DIR="$work/reports" \
    ctest --output-on-failure -R StableReads >"$work/rc.log" 2>&1; then
  cat "$work/rc.log"; fail "no non-repeatable read found at READ COMMITTED in 500 cases"
fi
grep -q "non-repeatable-read" "$work/rc.log" || { cat "$work/rc.log"; fail "the failure is not the oracle's finding"; }
report=$(find "$work/reports" -name scenario.txn | head -n 1)
[ -n "$report" ] || { cat "$work/rc.log"; fail "no report folder with scenario.txn"; }
echo "report: $(dirname "$report")"
cat "$report"

echo "== 3. extension_txprop replay --property stable-reads scenario.txn"
set +e
TXPROP_TARGETS="$flavour" ./extension_txprop replay --property stable-reads "$report" >"$work/replay.log" 2>&1
status=$?
set -e
cat "$work/replay.log"
[ $status = 1 ] || fail "replay exited $status, expected 1 (the verdict fails)"
grep -q "non-repeatable-read" "$work/replay.log" || fail "the replay does not show the finding"
echo "extension: the fourth engine and the fifth oracle work from outside the library"
