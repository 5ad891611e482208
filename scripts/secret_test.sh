#!/usr/bin/env bash
# No secret printed (issue 23): bad-input runs whose TXPROP_TARGETS hold a password in user:password@, in ?password=,
# in ?passwd=, under a misspelt key, given twice, to SQLite (which takes none), and one with every URI-special
# character. Every output of each run is searched for the secret: stdout, stderr, the report folder, the summary file,
# GoogleTest's and ctest's JUnit files, the JUnit the txprop command makes from the summary, the scenario program's
# output and `txprop targets` (what scripts print instead of TXPROP_TARGETS). Each secret is marked
# Zq7x between its special characters, so a fragment of it is found too. No server is needed (port 1 refuses).
# Usage: scripts/secret_test.sh <build dir> [--no-ctest]   (--no-ctest: skip the nested ctest run, whose logs in the
# build tree would collide with those of the ctest that runs this script)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
nested_ctest=1; [ "${2:-}" = --no-ctest ] && nested_ctest=0
suites="$build/tests/txprop_property_suites"
[ -x "$suites" ] || { echo "secret_test: $suites not built" >&2; exit 2; }
work=$(mktemp -d /tmp/txprop-secrets.XXXXXX)
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"

special="Zq7x:Zq7x/Zq7x?Zq7x#Zq7x[Zq7x]Zq7x@Zq7x!Zq7x\$Zq7x&Zq7x'Zq7x(Zq7x)Zq7x*Zq7x+Zq7x,Zq7x;Zq7x=Zq7x%Zq7x"
encoded="Zq7x%3AZq7x%2FZq7x%3FZq7x%23Zq7x%5BZq7x%5DZq7x%40Zq7x%21Zq7x%24Zq7x%26Zq7x%27Zq7x%28Zq7x%29Zq7x%2AZq7x%2BZq7x%2CZq7x%3BZq7x%3DZq7x%25Zq7x"  # $special percent-encoded
uris=(
  "mariadb://u@127.0.0.1:1/db?password=Zq7xSecret1"
  "postgresql://u@127.0.0.1:1/db?passwd=Zq7xSecret2"
  "postgresql://u@127.0.0.1:1/db?levels=ser&password=Zq7xSecret3"
  "sqlite:?password=Zq7xSecret4"
  "mariadb://u:Zq7xSecret5@127.0.0.1:1/db?password=Zq7xSecret6"
  "mariadb://u@127.0.0.1:1/db?pasword=Zq7xSecret7"
  "mariadb://u@127.0.0.1:1/db?Zq7xSecret8"
  "postgresql://u:$special@127.0.0.1:1/db"
  "postgresql://u@127.0.0.1:1/db?password=$encoded"
  "mariadb://u:$encoded@127.0.0.1:1/db?levels=ser"
)
failures=0
for i in "${!uris[@]}"; do
  uri=${uris[$i]}
  out="$work/run$i"
  mkdir -p "$out"
  export TXPROP_TARGETS="$uri" TXPROP_REPORT_DIR="$out/reports" TXPROP_SUMMARY_FILE="$out/summary.jsonl"
  "$suites" --gtest_filter='Wss.*' --gtest_output="xml:$out/gtest.xml" >"$out/stdout" 2>"$out/stderr"
  status=$?
  "$build/txprop" summary "$out/summary.jsonl" --junit "$out/summary-junit.xml" >"$out/summary.stdout" 2>&1
  [ $nested_ctest = 1 ] && (cd "$build" && ctest -R '^Wss\.check' --output-junit "$out/ctest.xml" >"$out/ctest.stdout" 2>&1)
  "$build/tests/txprop_scenarios" >"$out/scenarios.stdout" 2>&1
  "$build/txprop" targets >"$out/targets.stdout" 2>&1
  line=$(grep -ah 'txprop: target\|txprop: TXPROP' "$out/stdout" "$out/stderr" | head -n 1 | cut -c1-160)
  if grep -raq 'Zq7x' "$out"; then
    echo "secret_test: FAIL - TXPROP_TARGETS #$i: the secret appears in: $(grep -ral 'Zq7x' "$out" | sed "s|$out/||" | tr '\n' ' ')"
    grep -rah 'Zq7x' "$out" | head -n 2 | cut -c1-200 | sed 's/^/   saw: /'
    failures=$((failures + 1))
  elif [ $status -eq 0 ]; then
    echo "secret_test: FAIL - TXPROP_TARGETS #$i: the run passed"
    failures=$((failures + 1))
  else
    echo "secret_test: ok   - #$i: exit $status, no secret in $(find "$out" -type f | wc -l) files; $line"
  fi
done
echo "secret_test: $failures check(s) failed"
[ $failures -eq 0 ]
