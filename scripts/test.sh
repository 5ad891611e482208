#!/usr/bin/env bash
# The tests: install and build, start throw-away PostgreSQL and MariaDB servers on loopback, run every test
# (unit, engine integration, property suites with a small case budget, scenario files) against SQLite,
# PostgreSQL, MariaDB and MariaDB with innodb_snapshot_isolation=ON, then stop the servers.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scripts/setup.sh
trap '"$root/scripts/servers.sh" stop' EXIT
eval "$(scripts/servers.sh start)"
export TXPROP_TARGETS
export TXPROP_CASES=${TXPROP_CASES:-30}
echo "test.sh: TXPROP_TARGETS=$TXPROP_TARGETS TXPROP_CASES=$TXPROP_CASES"
cd build
ctest --output-on-failure -j 2 "$@"
