#!/usr/bin/env bash
# What a reset's statements cost on the first MariaDB target of TXPROP_TARGETS (issue 22 item 2): DROP + CREATE of a
# table with a secondary index (a case with a new schema; with two indexes created by CREATE INDEX, and declared in
# the CREATE TABLE as a reset does, framework/engines/driver.cpp), TRUNCATE (a case with the previous case's schema keeps its
# tables, framework/engines/reset_plan.hpp), and DELETE + INSERT (cheaper, but it leaves delete-marked records that
# change InnoDB's gap locks, so resets do not use it), each with innodb_file_per_table ON and OFF in one run
# (SET GLOBAL: the user needs SUPER; the previous value is restored). scripts/servers.sh starts its server with
# --debug-no-sync --skip-innodb-file-per-table and its data in /dev/shm (scripts/memory_dir.sh); a server started
# without --debug-no-sync shows what fsync adds, one with TXPROP_SERVER_MEMORY=0 what the redo log's fdatasync adds.
#
#   eval "$(scripts/servers.sh start)"; tests/bench/mariadb_reset_bench.sh [repetitions=50]
set -euo pipefail
reps=${1:-50}
uri=$(tr ' ' '\n' <<<"${TXPROP_TARGETS:-}" | grep -m1 '^mariadb://' || true)
[ -n "$uri" ] || { echo "mariadb_reset_bench: no mariadb:// target in TXPROP_TARGETS: skipped"; exit 0; }
rest=${uri#mariadb://}; rest=${rest%%\?*}
cred=${rest%%@*}; hostpart=${rest#*@}
user=${cred%%:*}; export MYSQL_PWD=${cred#*:}
host=${hostpart%%:*}; port=${hostpart#*:}; port=${port%%/*}
db="txprop_reset_bench_$$"
sql() { mariadb --no-defaults -h "$host" -P "$port" -u "$user" -N -B "$@"; }
sql -e "CREATE DATABASE $db"
before=$(sql -e "SELECT @@GLOBAL.innodb_file_per_table")
trap 'sql -e "SET GLOBAL innodb_file_per_table=$before; DROP DATABASE IF EXISTS $db" || true' EXIT
per_statement() {  # per_statement <label> <sql>: the mean over $reps runs in one session, in ms
  local t0 t1
  t0=$(date +%s%N)
  for _ in $(seq 1 "$reps"); do echo "$2"; done | sql "$db" >/dev/null
  t1=$(date +%s%N)
  printf '  %-34s %8.2f ms\n' "$1" "$(awk -v a="$t0" -v b="$t1" -v n="$reps" 'BEGIN { print (b - a) / n / 1e6 }')"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores); $reps repetitions each"
for fpt in ON OFF; do
  sql -e "SET GLOBAL innodb_file_per_table=$fpt"
  echo "innodb_file_per_table=$fpt:"
  sql "$db" -e "DROP TABLE IF EXISTS a, c; CREATE TABLE a (id INT PRIMARY KEY, v INT, KEY (v))"
  per_statement "DROP + CREATE TABLE" "DROP TABLE IF EXISTS c; CREATE TABLE c (id INT PRIMARY KEY, v INT, KEY (v));"
  per_statement "... 2 indexes by CREATE INDEX" "DROP TABLE IF EXISTS c; CREATE TABLE c (id INT PRIMARY KEY, v INT, w INT);
    CREATE INDEX c_v ON c (v); CREATE UNIQUE INDEX c_w ON c (w);"
  per_statement "... 2 indexes inline (the reset's)" "DROP TABLE IF EXISTS c;
    CREATE TABLE c (id INT PRIMARY KEY, v INT, w INT, KEY c_v (v), UNIQUE KEY c_w (w));"
  per_statement "TRUNCATE + INSERT of 2 rows" "TRUNCATE TABLE a; INSERT INTO a VALUES (1, 1), (2, 2);"
  per_statement "DELETE + INSERT of 2 rows" "DELETE FROM a; INSERT INTO a VALUES (1, 1), (2, 2);"
  per_statement "SELECT 1 (the round trip)" "SELECT 1;"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
