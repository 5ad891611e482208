#!/usr/bin/env bash
# Starts and stops throw-away PostgreSQL and MariaDB servers on loopback, in a temporary directory, without
# systemd. Usage:
#   scripts/servers.sh start [postgresql] [mariadb] [galera] [postgresql@VERSION ...]   (PostgreSQL and MariaDB when
#                                                    none is named; galera: a 3-node MariaDB Galera cluster,
#                                                    scripts/galera.sh; postgresql@17, postgresql@16.9: npm builds of
#                                                    other versions, fetched and cached by scripts/pg_version.sh, named
#                                                    postgresql17, ...)
#   scripts/servers.sh stop [galera]                  (galera: only the cluster)
#   scripts/servers.sh env                             prints: export TXPROP_TARGETS="..."
# Progress goes to stderr; stdout carries only the export line, so eval "$(scripts/servers.sh start)" works.
# State lives in $TXPROP_SERVER_DIR (default /tmp/txprop-servers). Each start picks a random free port and a
# random password per server, kept in that directory (mode 700) where `servers.sh env` finds them, so a stale
# TXPROP_TARGETS never reaches another run's server. As root, PostgreSQL runs as the postgres user and MariaDB as
# mysql.
set -euo pipefail

DIR=${TXPROP_SERVER_DIR:-/tmp/txprop-servers}
HERE=$(cd "$(dirname "$0")" && pwd)
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)

# shellcheck source=lib.sh
source "$HERE/lib.sh"
# shellcheck source=galera.sh
source "$HERE/galera.sh"
# shellcheck source=memory_dir.sh
source "$HERE/memory_dir.sh"

start_postgresql() {
  [ -n "$PG_BIN" ] || { echo "servers.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2; return 1; }
  if [ -f "$DIR/pg/port" ] && port_in_use "$(cat "$DIR/pg/port")"; then
    echo "servers.sh: PostgreSQL already running on port $(cat "$DIR/pg/port")" >&2; return 0
  fi
  release_data_dir "$DIR/pg"; rm -rf "$DIR/pg"; mkdir -p "$DIR/pg"; chmod 700 "$DIR/pg"
  new_password >"$DIR/pg/password"; chmod 600 "$DIR/pg/password"
  local data
  data=$(data_dir "$DIR/pg" 1024)  # in memory where there is room (memory_dir.sh says why)
  [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$DIR/pg" "$data"
  # TCP needs the password; the socket in $DIR/pg (mode 700) is for this script.
  as_user postgres "$PG_BIN/initdb" -D "$data" --auth-host=scram-sha-256 --auth-local=trust \
    --pwfile="$DIR/pg/password" -U postgres -E UTF8 --locale=C.UTF-8 --no-sync \
    >"$DIR/pg/initdb.log" 2>&1 || { cat "$DIR/pg/initdb.log" >&2; return 1; }
  local port tries=0
  # shared_buffers=16MB (the default is 128MB): the commit of every TRUNCATE and DROP TABLE, i.e. of every reset,
  # scans the whole buffer pool for the pages of the files it removes (DropRelFileNodesAllBuffers in
  # src/backend/storage/buffer/bufmgr.c: it looks pages up by the relation's size only during recovery), 14% of the
  # server's time in a loop of resets (perf, PostgreSQL 15.18). A case's tables fill a few pages. Measured with
  # pgbench on this machine, TRUNCATE of two tables and INSERT of their rows, alternating restarts: 1.48/1.35 ms with
  # 128MB, 1.08/0.97 ms with 16MB (4MB was no faster). Issue 22.
  while :; do
    port=$(free_port)
    if as_user postgres "$PG_BIN/pg_ctl" -D "$DIR/pg/data" -l "$DIR/pg/server.log" -w -t 30 start -o \
      "-c listen_addresses=127.0.0.1 -p $port -k $DIR/pg -c fsync=off -c synchronous_commit=off \
       -c full_page_writes=off -c max_connections=200 -c shared_buffers=16MB" >/dev/null; then
      break
    fi
    tries=$((tries + 1))  # another server may have taken the port in between
    [ $tries -lt 5 ] || { cat "$DIR/pg/server.log" >&2; return 1; }
  done
  echo "$port" >"$DIR/pg/port"
  as_user postgres "$PG_BIN/psql" -h "$DIR/pg" -p "$port" -U postgres -qAt -c "CREATE DATABASE txtest" >/dev/null
  echo "servers.sh: PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
}

start_mariadb() {
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || {
    echo "servers.sh: MariaDB is not installed (apt-get install mariadb-server)" >&2; return 1; }
  local mariadbd=/usr/sbin/mariadbd
  if [ -f "$DIR/mariadb/port" ] && port_in_use "$(cat "$DIR/mariadb/port")"; then
    echo "servers.sh: MariaDB already running on port $(cat "$DIR/mariadb/port")" >&2; return 0
  fi
  release_data_dir "$DIR/mariadb"; rm -rf "$DIR/mariadb"; mkdir -p "$DIR/mariadb"; chmod 700 "$DIR/mariadb"
  new_password >"$DIR/mariadb/password"; chmod 600 "$DIR/mariadb/password"
  local user_opt=() data
  data=$(data_dir "$DIR/mariadb" 1024)  # in memory where there is room (memory_dir.sh says why)
  if [ "$(id -u)" = 0 ]; then chown mysql:mysql "$DIR/mariadb" "$data"; user_opt=(--user=mysql); fi
  mariadb-install-db --no-defaults --datadir="$data" "${user_opt[@]}" \
    --auth-root-authentication-method=normal --skip-test-db >"$DIR/mariadb/install.log" 2>&1 ||
    { cat "$DIR/mariadb/install.log" >&2; return 1; }
  local port tries=0
  # A throw-away test server, like PostgreSQL's fsync=off above: --debug-no-sync skips fsync, and tables in the system
  # tablespace (no file per table) make CREATE, DROP and TRUNCATE page operations instead of file ones. A case cannot
  # tell (locking and MVCC do not depend on where a table is stored); its reset can: TRUNCATE 32-50 -> 2 ms, DROP +
  # CREATE 91 -> 9 ms, txprop_harness_bench's shrink median 1.9 -> 0.3 s (issue 22; README "Parallel workers").
  while :; do
    port=$(free_port)
    "$mariadbd" --no-defaults --datadir="$data" "${user_opt[@]}" --bind-address=127.0.0.1 \
      --port="$port" --socket="$DIR/mariadb/s.sock" --pid-file="$DIR/mariadb/mariadbd.pid" --skip-log-bin \
      --skip-name-resolve --innodb-buffer-pool-size=128M --innodb-flush-log-at-trx-commit=0 --max-connections=300 \
      --debug-no-sync --skip-innodb-file-per-table \
      >"$DIR/mariadb/server.log" 2>&1 &
    local pid=$! ok=0
    for _ in $(seq 1 150); do
      if mariadb-admin --no-defaults --socket="$DIR/mariadb/s.sock" -uroot ping >/dev/null 2>&1; then ok=1; break; fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if [ $ok = 1 ]; then echo "$pid" >"$DIR/mariadb/pid"; break; fi
    kill "$pid" 2>/dev/null || true
    tries=$((tries + 1))
    [ $tries -lt 5 ] || { cat "$DIR/mariadb/server.log" >&2; return 1; }
  done
  echo "$port" >"$DIR/mariadb/port"
  mariadb --no-defaults --socket="$DIR/mariadb/s.sock" -uroot -e "
    CREATE DATABASE txtest;
    CREATE USER 'txtest'@'127.0.0.1' IDENTIFIED BY '$(cat "$DIR/mariadb/password")';
    GRANT ALL PRIVILEGES ON *.* TO 'txtest'@'127.0.0.1';"
  echo "servers.sh: MariaDB $("$mariadbd" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
}

stop_all() {
  if [ -f "$DIR/pg/port" ] && [ -n "$PG_BIN" ]; then
    as_user postgres "$PG_BIN/pg_ctl" -D "$DIR/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  if [ -f "$DIR/mariadb/pid" ]; then
    # Throw-away data: SIGKILL is instant where a clean shutdown takes seconds.
    kill -9 "$(cat "$DIR/mariadb/pid")" 2>/dev/null || true
  fi
  stop_galera
  for d in "$DIR"/pg-*; do [ -d "$d" ] && "$HERE/pg_version.sh" stop "$d"; done
  for d in "$DIR"/*/; do release_data_dir "$d"; done
  rm -rf "$DIR"
}

print_env() {
  local targets=""
  [ -f "$DIR/pg/port" ] &&
    targets="postgresql://postgres:$(cat "$DIR/pg/password")@127.0.0.1:$(cat "$DIR/pg/port")/txtest"
  if [ -f "$DIR/mariadb/port" ]; then
    local m="mariadb://txtest:$(cat "$DIR/mariadb/password")@127.0.0.1:$(cat "$DIR/mariadb/port")/txtest"
    targets="$targets $m $m?innodb_snapshot_isolation=ON"
  fi
  local galera; galera=$(galera_target)
  [ -n "$galera" ] && targets="$targets $galera"
  for d in "$DIR"/pg-*; do [ -d "$d" ] && targets="$targets $("$HERE/pg_version.sh" target "$d")"; done
  echo "export TXPROP_TARGETS=\"sqlite: sqlite:?journal_mode=delete ${targets# }\""
}

cmd=${1:-}; shift || true
case "$cmd" in
  start)
    mkdir -p "$DIR"
    which=("$@"); [ ${#which[@]} -gt 0 ] || which=(postgresql mariadb)
    for w in "${which[@]}"; do
      case "$w" in
        postgresql) start_postgresql ;;
        mariadb) start_mariadb ;;
        galera) start_galera ;;
        postgresql@*) "$HERE/pg_version.sh" start "${w#postgresql@}" "$DIR" ;;
        *) echo "servers.sh: unknown server '$w' (postgresql, postgresql@VERSION, mariadb, galera)" >&2; exit 2 ;;
      esac
    done
    print_env ;;
  stop) if [ "${1:-}" = galera ]; then stop_galera; else stop_all; fi ;;
  env) print_env ;;
  *) echo "usage: scripts/servers.sh start [postgresql] [postgresql@VERSION] [mariadb] [galera] | stop [galera] | env" >&2
     exit 2 ;;
esac
