#!/usr/bin/env bash
# Installs the txprop build in $1 to a temporary prefix, builds this consumer project against it with
# find_package(txprop), and runs its tests on SQLite.
set -euo pipefail
build_tree=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_tree" --prefix "$work/prefix" >/dev/null
cmake -S "$here" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/build" -j 2 >/dev/null
cd "$work/build"
TXPROP_TARGETS=sqlite: ctest --output-on-failure
