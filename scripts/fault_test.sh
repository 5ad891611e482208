#!/usr/bin/env bash
# The fault suite (issue 10): txprop against servers that stall, die or drop connections, and runs that are
# interrupted or killed. It starts its own private PostgreSQL and MariaDB (scripts/servers.sh with a private
# TXPROP_SERVER_DIR), so stopping and killing them disturbs no other test. Each check prints what it saw; the
# script fails on the first check that does not hold. Usage: scripts/fault_test.sh <build dir>
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
suites="$build/tests/txprop_property_suites"
[ -x "$suites" ] || { echo "fault_test: $suites not built" >&2; exit 2; }

work=$(mktemp -d /tmp/txprop-faults.XXXXXX)
chmod 755 "$work"  # the servers run as postgres and mysql
export TXPROP_SERVER_DIR="$work/servers"
cleanup() {
  [ -f "$TXPROP_SERVER_DIR/mariadb/pid" ] && kill -CONT "$(cat "$TXPROP_SERVER_DIR/mariadb/pid")" 2>/dev/null
  "$root/scripts/servers.sh" stop
  rm -rf "$work"
}
trap cleanup EXIT
"$root/scripts/servers.sh" start >/dev/null || { echo "fault_test: cannot start the servers" >&2; exit 2; }
export TMPDIR="$work/tmp"  # SQLite files of these runs, to check that none is left (set after the servers start)
mkdir -p "$TMPDIR"

# shellcheck source=server_access.sh
source "$root/scripts/server_access.sh"
failures=0
check() {  # check <description> <condition already evaluated: 0 ok>
  if [ "$2" = 0 ]; then echo "fault_test: ok   - $1"; else echo "fault_test: FAIL - $1"; failures=$((failures + 1)); fi
}
now() { date +%s.%N; }
elapsed() { echo "$1 $2" | awk '{printf "%.1f", $2 - $1}'; }
within() { awk "BEGIN{exit !($(now) - $1 < $2)}"; }  # within <start> <seconds>
leftovers() {
  echo "pg=[$(pg "SELECT string_agg(nspname, ',') FROM pg_namespace WHERE nspname LIKE 'txprop%'")]" \
       "mariadb=[$(my "SELECT GROUP_CONCAT(SCHEMA_NAME) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'txprop%'" | sed 's/NULL//')]" \
       "sqlite=[$(cd "$TMPDIR" && ls txprop_* 2>/dev/null | tr '\n' ',')]"
}
clean_leftovers() { [ "$(leftovers)" = "pg=[] mariadb=[] sqlite=[]" ]; }
export TXPROP_REPORT_DIR="$work/reports"

echo "== 0. a user without the INSERT privilege: the engine's own error, once, not 'table already exists'"
my "CREATE USER 'noins'@'127.0.0.1' IDENTIFIED BY 'noins-pw'; GRANT SELECT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER, PROCESS ON *.* TO 'noins'@'127.0.0.1'"
out=$(TXPROP_TARGETS="mariadb://noins:noins-pw@127.0.0.1:$(cat "$TXPROP_SERVER_DIR/mariadb/port")/txtest?levels=ser" \
      TXPROP_CASES=5 "$suites" --gtest_filter='Wss.*' 2>&1)
echo "$out" | grep -a '^setup-rejected' | cut -c1-200 | sed 's/^/   saw: /'
echo "$out" | grep -aq '(1142): INSERT command denied'; check "the real error (1142) is shown" $?
! echo "$out" | grep -aq 'already exists'; check "no 'already exists' from a half-done reset" $?
! echo "$out" | grep -aq 'noins-pw'; check "the password is not shown" $?

echo "== 1. a run killed with SIGKILL leaves its objects; the next run reclaims them"
# A fixed seed: what these runs do before the kill is the same in every CI run (a random one once met a WSS false
# alarm after 19,900 SQLite cases, and the run had ended before the kill). The check below says if a run ended early.
for t in "sqlite:" "$PG" "$MY"; do
  TXPROP_SEED=1 TXPROP_TARGETS="$t?levels=ser" TXPROP_CASES=100000 "$suites" --gtest_filter='Wss.*' >/dev/null 2>&1 &
  pid=$!; sleep 2
  kill -0 $pid 2>/dev/null; check "the run on ${t%%:*} was still going when killed" $?
  kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
done
echo "   left after SIGKILL: $(leftovers)"
clean_leftovers; check "SIGKILL left objects on the engines (as it must)" $((1 - $?))
out=$(TXPROP_TARGETS="sqlite: $PG?levels=ser $MY?levels=ser" TXPROP_CASES=3 "$suites" --gtest_filter='Wss.*' 2>&1)
echo "$out" | grep -a 'reclaimed' | sed 's/^/   saw: /'
[ "$(echo "$out" | grep -ac 'reclaimed')" -ge 3 ]; check "the next run reclaimed them, one line each" $?
clean_leftovers; clean=$?; check "nothing left: $(leftovers)" $clean  # $? after $(...) would be that of leftovers

echo "== 2. SIGTERM and SIGINT of a run leave nothing on any engine"
for sig in TERM INT; do
  # Enough cases that the run is still going when the signal comes (40 once were; with cheaper resets they end in
  # under 2.5 s).
  TXPROP_SEED=1 TXPROP_TARGETS="sqlite: $PG?levels=ser,rc $MY?levels=ser" TXPROP_CASES=100000 "$suites" --gtest_filter='Wss.*:Atomicity.*' \
    >"$work/sig.log" 2>&1 &
  pid=$!; sleep 2.5; kill -$sig $pid; wait $pid; status=$?
  grep -a '\[txprop\] \(SIG\|target.*\(dropped\|removed\)\)' "$work/sig.log" | sed 's/^/   saw: /'
  [ $status -eq $((128 + $(kill -l $sig))) ]; check "SIG$sig: exit status $status" $?
  clean_leftovers; clean=$?; check "SIG$sig: nothing left: $(leftovers)" $clean
done

echo "== 3. PostgreSQL: control connection and session backends terminated mid-run"
# A fixed seed: with a random one the 250 cases may meet PostgreSQL's own SSI bug before 15.20 (no predicate lock on
# the row an ON CONFLICT DO NOTHING conflicts with, tests/scenarios/engine_bugs/pg_ssi_on_conflict_do_nothing_*.txn),
# a WSS failure that is no fault of the terminations (met here on 15.18, seed 5001; it replays 10 of 10 without
# them). Seed 1's 250 cases at both levels pass on 15.18 without terminations.
TXPROP_SEED=1 TXPROP_TARGETS="$PG?levels=ser,rc" TXPROP_CASES=250 "$suites" --gtest_filter='Wss.*' >"$work/term.log" 2>&1 &
pid=$!
for _ in 1 2 3; do
  sleep 1.5
  n=$(pg "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE 'txprop%' AND pid <> pg_backend_pid()")
  echo "   terminated $n backends"
done
wait $pid; status=$?
grep -a 'control connection lost\|did not reproduce\|FAILED\|OK \]\|failed on\|^\* \|^report: ' "$work/term.log" | cut -c1-160 | sed 's/^/   saw: /'
public=$(pg "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'public'")
[ -z "$public" ]; check "no table created in public ($public)" $?
! grep -aq 'invalid-statement' "$work/term.log"; check "no false invalid-statement finding" $?
[ $status -eq 0 ]; check "the run passed (exit $status): terminated connections are re-run, not findings" $?

echo "== 3b. PostgreSQL: session backends stalled (SIGSTOP), TXPROP_HANG_LIMIT_MS=3000"
# A statement hang with the server still answering is shrunk like any finding (it may be an engine's own hang):
# the shrink budget is kept small so that the bound below measures the abandoned worker, not the shrinking.
TXPROP_TARGETS="$PG?levels=ser" TXPROP_CASES=100000 TXPROP_HANG_LIMIT_MS=3000 TXPROP_SHRINK_SECONDS=5 "$suites" \
  --gtest_filter='Wss.*' >"$work/pgstop.log" 2>&1 &
pid=$!
sleep 2
# Every session backend (the control connection is the run's first, lowest pid): the next case uses one of them.
# Under load the run may not have opened its sessions yet: wait for them.
backend=""
for _ in $(seq 1 50); do
  backend=$(pg "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity WHERE application_name LIKE 'txprop%'
                AND pid > (SELECT min(pid) FROM pg_stat_activity WHERE application_name LIKE 'txprop%')")
  [ -n "$backend" ] && break
  sleep 0.2
done
kill -STOP $backend; stopped=$(now)
while kill -0 $pid 2>/dev/null; do
  within "$stopped" 60 || { kill -KILL $pid; break; }
  sleep 0.2
done
wait $pid; ended=$(now); kill -CONT $backend
grep -a '^hang \|^crash \|report:' "$work/pgstop.log" | cut -c1-160 | sed 's/^/   saw: /'
echo "   stopped backends $backend; run ended $(elapsed "$stopped" "$ended") s after it"
grep -aq '^\* hang' "$work/pgstop.log"; check "a hang finding" $?
awk "BEGIN{exit !($ended - $stopped <= 30)}"; check "the run ended: the stuck worker was abandoned, not joined" $?

echo "== 4. SIGSTOP of the MariaDB server (TXPROP_HANG_LIMIT_MS=3000)"
mpid=$(cat "$TXPROP_SERVER_DIR/mariadb/pid")
TXPROP_TARGETS="$MY?levels=ser,rr" TXPROP_CASES=100000 TXPROP_HANG_LIMIT_MS=3000 "$suites" --gtest_filter='Wss.*' \
  >"$work/stop.log" 2>&1 &
pid=$!
sleep 2; kill -STOP "$mpid"; stopped=$(now)
found=""
while kill -0 $pid 2>/dev/null; do
  if [ -z "$found" ] && grep -aq '^\* \(hang\|crash\)' "$work/stop.log"; then found=$(now); fi
  within "$stopped" 90 || { kill -KILL $pid; break; }
  sleep 0.2
done
wait $pid; ended=$(now)
[ -n "$found" ] || { grep -aq '^\* \(hang\|crash\)' "$work/stop.log" && found=$ended; }
kill -CONT "$mpid"
grep -a '^\(hang\|crash\) \|is unreachable\|report:' "$work/stop.log" | cut -c1-200 | sed 's/^/   saw: /'
echo "   finding $(elapsed "$stopped" "${found:-$ended}") s after SIGSTOP; run ended $(elapsed "$stopped" "$ended") s after it"
grep -aq '^\* hang' "$work/stop.log"; check "a hang finding" $?
[ -n "$found" ] && awk "BEGIN{exit !($found - $stopped <= 8.5)}"; check "within the hang limit + 5 s" $?
awk "BEGIN{exit !($ended - $stopped <= 60)}"; check "the run ended (no wait forever)" $?
sleep 1

echo "== 5. kill -9 of the MariaDB server mid-run"
TXPROP_TARGETS="$MY?levels=ser,rr,rc" TXPROP_CASES=100000 TXPROP_HANG_LIMIT_MS=3000 "$suites" --gtest_filter='Wss.*' \
  >"$work/kill.log" 2>&1 &
pid=$!
sleep 2; kill -KILL "$mpid"; killed=$(now)
while kill -0 $pid 2>/dev/null; do
  within "$killed" 90 || { kill -KILL $pid; break; }
  sleep 0.2
done
wait $pid; ended=$(now)
grep -a '^\* \|^crash \|is unreachable\|report:\|FAILED  \] Wss' "$work/kill.log" | cut -c1-200 | sed 's/^/   saw: /'
echo "   run ended $(elapsed "$killed" "$ended") s after the kill"
grep -aq '^\* crash' "$work/kill.log"; check "a crash finding" $?
report=$(grep -a '^report: ' "$work/kill.log" | head -n 1 | cut -c9-)
[ -n "$report" ] && [ -f "$report/scenario.txn" ] && grep -q 'crash' "$report/scenario.txn"
check "a report folder with the scenario marked as a crash ($report)" $?
[ "$(grep -ac 'is unreachable since an earlier suite' "$work/kill.log")" -eq 2 ]; check "the other two suites end with one line each" $?
! grep -aq 'RC_PARAMS=\|Falsifiable' "$work/kill.log"; check "no RC_PARAMS line, no RapidCheck shrink output" $?
! grep -aq 'txprop: target [^ ]*: txprop: target' "$work/kill.log"; check "no doubled prefix" $?
awk "BEGIN{exit !($ended - $killed <= 30)}"; check "no hang" $?

echo "fault_test: $failures check(s) failed"
[ $failures -eq 0 ]
