#!/usr/bin/env bash
# txprop replay and txprop check: transaction names from the scenario file, and exit codes that say whether
# something was checked and held; txprop summary's table, JUnit XML and exit code.   cli_check.sh <txprop> <tests/cli directory>
set -uo pipefail
txprop=$1
dir=$2
export TXPROP_TARGETS=sqlite:
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "cli_check: FAILED: $*"; cat "$out"; exit 1; }

"$txprop" replay "$dir/named_transactions.txn" >"$out" 2>&1 || fail "replay of a scenario that holds exited $?"
grep -qE '^ +[0-9]+  alice  BEGIN;' "$out" || fail "replay does not label transactions with the scenario's names"
grep -qE '^ +[0-9]+  bob    UPDATE' "$out" || fail "replay does not label bob"
grep -q -- '-- bob: committed' "$out" || fail "no fate line for bob"
grep -q 'expected wss ok .*: met' "$out" || fail "replay did not judge the scenario's expectation"

"$txprop" replay "$dir/wrong_expectation.txn" >"$out" 2>&1 && fail "replay exited 0 with an expectation not met"
grep -q 'NOT MET' "$out" || fail "replay does not say the expectation is not met"
grep -q 'txprop replay: 1 of 1 run(s) failed' "$out" || fail "replay does not say why it failed"

"$txprop" replay "$dir/named_transactions.txn" --property wss --level rr >"$out" 2>&1 && fail "replay at a level SQLite does not test exited 0"
grep -q 'nothing replayed' "$out" || fail "replay does not say nothing was replayed"
for bad in 0 -3 abc 5x ""; do
  "$txprop" replay "$dir/named_transactions.txn" --repeat "$bad" >"$out" 2>&1 && fail "replay --repeat '$bad' exited 0"
  grep -q -- "--repeat needs a whole number" "$out" || fail "replay --repeat '$bad' does not name what was wrong"
done

"$txprop" replay "$dir/colliding_names.txn" >"$out" 2>&1 || fail "replay of colliding_names.txn exited $?"
grep -qE '^ +[0-9]+  observer  SELECT' "$out" || fail "replay does not label the observer transaction 'observer'"
[ "$(grep -c '^-- T3: committed' "$out")" = 1 ] || fail "replay labels two transactions T3"
grep -q '^-- T0:' "$out" && fail "replay prints a positional name (T0) for a scenario named T1, T2, T3"
"$txprop" check "$dir/named_transactions.txn" >"$out" 2>&1 || fail "check of a scenario that holds exited $?"
"$txprop" check "$dir/wrong_expectation.txn" >"$out" 2>&1 && fail "check exited 0 with an expectation not met"
grep -q MISMATCH "$out" || fail "check does not say MISMATCH"
"$txprop" check "$dir/mysql_only.txn" >"$out" 2>&1 && fail "check exited 0 with nothing checked"
grep -q 'NOTHING CHECKED' "$out" || fail "check does not say nothing was checked"
"$txprop" check "$dir/version_range.txn" >"$out" 2>&1 && fail "check exited 0 with the only target outside the versions"
grep -q 'skipped: the scenario applies to versions 12.0-15.17 and the target does not report its version' "$out" ||
  fail "check does not say why the scenario was skipped"
"$txprop" replay "$dir/version_range.txn" >"$out" 2>&1 && fail "replay exited 0 on a target outside the versions"
grep -q 'nothing replayed on sqlite:: the scenario applies to versions 12.0-15.17' "$out" || fail "replay does not say why"
"$txprop" check >"$out" 2>&1 && fail "check with no file exited 0"
grep -q 'no scenario file given' "$out" || fail "check with no file does not say so"
# txprop summary: the main job's table and JUnit XML from the records; exit 1 on a failure or on no record.
records=$(mktemp)
junit=$(mktemp)
trap 'rm -f "$out" "$records" "$junit"' EXIT
cat >"$records" <<'JSON'
{"type":"property","suite":"Wss","target":"mariadb","uri":"mariadb://u:***@h/db","level":"read_committed","status":"passed","cases":100,"seconds":12.5,"inconclusive":1,"documented":[{"kind":"final-state-mismatch","cases":7,"source":"MariaDB KB: semi-consistent read"}],"tags":[{"tag":"non-commit-serial-order","cases":3}]}
{"type":"scenario","suite":"Scenario","scenario":"lost_update","file":"/x/lost_update.txn","target":"mariadb","uri":"mariadb://u:***@h/db","level":"read_committed, repeatable_read","status":"passed","seconds":0.5}
JSON
"$txprop" summary "$records" --junit "$junit" >"$out" 2>&1 || fail "summary of passing records exited $?"
grep -qE '^Wss +mariadb +RC +100 +12.5  ok; documented: final-state-mismatch x7; 1 without a verdict' "$out" || fail "no suite row"
grep -q 'source: MariaDB KB: semi-consistent read' "$out" || fail "no documented source"
grep -qE '^lost_update +ok \(2\)' "$out" || fail "no scenario row"
grep -q '^TOTAL: 1 suite runs, 100 cases, 1 scenario runs' "$out" || fail "no total line"
grep -q '<property name="documented.final-state-mismatch" value="7"/>' "$junit" || fail "JUnit lacks the figures"
echo '{"type":"property","suite":"Wss","target":"pg","level":"serializable","status":"failed","cases":4,"seconds":1,"finding":"G2","report":"/r/1","documented":[],"tags":[]}' >>"$records"
"$txprop" summary "$records" --junit "$junit" >"$out" 2>&1 && fail "summary with a failure exited 0"
grep -q 'report: /r/1' "$out" || fail "the failure's report folder is not shown"
grep -q 'failures="1"' "$junit" || fail "JUnit does not count the failure"
: >"$records"
"$txprop" summary "$records" >"$out" 2>&1 && fail "summary of no record exited 0"
grep -q 'NOTHING WAS CHECKED' "$out" || fail "summary of no record does not say nothing was checked"
echo "cli_check: names, verdicts, exit codes and the summary as expected"
