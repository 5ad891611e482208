#!/usr/bin/env bash
# The main job: build, then run the property suites against the embedded SQLite target and every target named
# in TXPROP_TARGETS (connection URIs, see README). TXPROP_CASES sets the cases per suite (default 100).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "main.sh: targets: ${TXPROP_TARGETS:-sqlite: (default)}"
cd build
ctest --output-on-failure -R '^(Atomicity|Wss|Adya)\.' "$@"
