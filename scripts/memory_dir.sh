# A test server's data directory in memory (tmpfs), where the machine has one with room: servers.sh links
# $TXPROP_SERVER_DIR/<server>/data to it. Sourced, never run.
#
# Why: a DDL statement makes InnoDB write its redo log and fdatasync it even with --debug-no-sync and
# innodb_flush_log_at_trx_commit=0 (strace -c on 10.11.19: 102 fdatasync for 50 DROP + CREATE;
# --innodb-flush-method=nosync and --innodb-log-file-mmap leave them), and on a disk shared with other builds one
# fdatasync took 0.1-5 ms. With the data on tmpfs none is left (0 for the same 50), and DROP + CREATE + INSERT of a
# table with an index took 0.8-1.6 ms instead of 5.3-8.8 ms, alternating between the two servers at load 7 (issue 22).
# Where data is stored changes neither locking nor MVCC, only durability, which a throw-away test server does not need
# (MariaDB's own test runner, mysql-test-run --mem, keeps its servers' data in /dev/shm for the same reason).
# PostgreSQL (fsync=off) syncs nothing at DDL, and psql timed DROP + CREATE and TRUNCATE alike on both; yet its WSS
# suite ran faster with the data in memory, in each of six alternating runs (tests/bench/jobs_bench.sh, 200 cases, load
# 5-7): jobs 1 54.6-71.3 -> 71.6-79.4 cases/s, jobs 2 78.8-84.1 -> 90.2-98.0.
# TXPROP_SERVER_MEMORY=0 keeps the data on disk.

MEMORY_ROOT=${TXPROP_MEMORY_ROOT:-/dev/shm}

# data_dir <dir> <MiB>: creates <dir>/data, a link to a new directory in $MEMORY_ROOT when that is a tmpfs with <MiB>
# free (else a plain directory), and prints where the data lives.
data_dir() {
  local dir=$1 need=$2 free target
  if [ "${TXPROP_SERVER_MEMORY:-1}" != 0 ] && [ "$(stat -f -c %T "$MEMORY_ROOT" 2>/dev/null)" = tmpfs ]; then
    free=$(df -Pm "$MEMORY_ROOT" | awk 'NR == 2 { print $4 }')
    if [ "${free:-0}" -ge "$need" ] && target=$(mktemp -d "$MEMORY_ROOT/txprop-data.XXXXXX"); then
      ln -s "$target" "$dir/data"
      echo "$target"
      return
    fi
  fi
  mkdir -p "$dir/data"
  echo "$dir/data"
}

# release_data_dir <dir>: removes the memory directory <dir>/data links to, if any (before <dir> is removed).
release_data_dir() {
  local target
  [ -L "$1/data" ] || return 0
  target=$(readlink "$1/data")
  case $target in "$MEMORY_ROOT"/txprop-data.*) rm -rf "$target" ;; esac
}
