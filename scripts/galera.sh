# A three-node MariaDB Galera cluster on loopback, for scripts/servers.sh (which sources this file and calls
# start_galera / stop_galera / galera_target; it provides $DIR, and free_port and new_password from lib.sh).
#
# Every start makes fresh data directories: after all nodes stopped at once every grastate.dat says
# safe_to_bootstrap: 0, so old ones cannot be reused (../shared/notes/galera.md). Each node gets four random free ports:
# SQL, group communication (gcomm), IST and SST. Node 1 bootstraps the cluster (--wsrep-new-cluster); nodes 2 and 3
# start from empty directories and receive everything, users included, by rsync state transfer (SST), which took
# 3-7 s per joiner where mariabackup took 26-28 s for the cluster. The wait for each node is bounded: a node that
# cannot join would otherwise wait forever; it ends with one line naming the node's log.

GALERA_NODES=3
GALERA_PROVIDER=/usr/lib/galera/libgalera_smm.so
GALERA_WAIT_S=${TXPROP_GALERA_WAIT_S:-90}

galera_dir() { echo "$DIR/galera"; }

# One node's mariadbd, in the background; its pid goes to node<N>/pid.
galera_start_node() {
  local n=$1 g=$(galera_dir) gcomm=$2 new_cluster=${3:-}
  local d="$g/node$n" port gport iport sport
  read -r port gport iport sport <"$d/ports"
  local user_opt=()
  [ "$(id -u)" = 0 ] && user_opt=(--user=mysql)
  # Its own session and process group (setsid), so that stopping it also ends its state-transfer scripts and rsync.
  setsid /usr/sbin/mariadbd --no-defaults "${user_opt[@]}" --datadir="$d/data" --socket="$d/s.sock" \
    --pid-file="$d/mariadbd.pid" --port="$port" --bind-address=127.0.0.1 --skip-name-resolve \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=16M --innodb-flush-log-at-trx-commit=0 \
    --max-connections=300 --binlog-format=ROW --default-storage-engine=InnoDB --innodb-autoinc-lock-mode=2 \
    --wsrep-on=ON --wsrep-provider="$GALERA_PROVIDER" --wsrep-cluster-name="txprop_$$" \
    --wsrep-cluster-address="gcomm://$gcomm" --wsrep-node-address="127.0.0.1:$gport" \
    --wsrep-node-name="node$n" \
    --wsrep-provider-options="gmcast.listen_addr=tcp://127.0.0.1:$gport;ist.recv_addr=127.0.0.1:$iport;gcache.size=16M" \
    --wsrep-sst-method=rsync --wsrep-sst-receive-address="127.0.0.1:$sport" $new_cluster \
    >"$d/server.log" 2>&1 &
  echo $! >"$d/pid"
  disown $!
}

# Prints "size ready state status" of node N (empty while it does not answer).
galera_node_status() {
  local d="$(galera_dir)/node$1"
  mariadb --no-defaults --socket="$d/s.sock" -uroot -N -B -e "
    SELECT GROUP_CONCAT(VARIABLE_VALUE ORDER BY VARIABLE_NAME SEPARATOR ' ') FROM information_schema.GLOBAL_STATUS
    WHERE VARIABLE_NAME IN ('WSREP_CLUSTER_SIZE','WSREP_CLUSTER_STATUS','WSREP_LOCAL_STATE_COMMENT','WSREP_READY')" \
    2>/dev/null || true
}

# Waits (bounded) until node N is Synced and Primary, in a cluster of at least `size` nodes, and ready.
galera_wait_node() {
  local n=$1 size=$2 deadline=$(( $(date +%s) + GALERA_WAIT_S )) d="$(galera_dir)/node$1"
  while [ "$(date +%s)" -lt "$deadline" ]; do
    # Sorted by name: cluster_size, cluster_status, local_state_comment, ready.
    local s; s=$(galera_node_status "$n")
    if [ -n "$s" ]; then
      local got_size status state ready
      read -r got_size status state ready <<<"$s"
      [ "$got_size" -ge "$size" ] && [ "$status" = Primary ] && [ "$state" = Synced ] && [ "$ready" = ON ] && return 0
    fi
    kill -0 "$(cat "$d/pid")" 2>/dev/null ||
      { echo "galera.sh: node $n exited before joining the cluster: see $d/server.log" >&2; return 1; }
    sleep 0.2
  done
  echo "galera.sh: node $n did not become Synced and Primary within ${GALERA_WAIT_S} s: see $d/server.log" >&2
  return 1
}

start_galera() {
  local attempt n
  for attempt in 1 2 3; do
    start_galera_nodes && return 0
    # The nodes that did start are ended; their logs stay for reading until the next start or stop.
    for n in $(seq 1 $GALERA_NODES); do
      galera_kill_node "$n"
    done
    # Another process may still take a port between its choice and the node's bind: only that is tried again.
    grep -qs "Address already in use" "$(galera_dir)"/node*/server.log || return 1
    echo "galera.sh: a port was taken before its node could bind it; starting again with new ports" >&2
  done
  return 1
}

start_galera_nodes() {
  [ -x /usr/sbin/mariadbd ] && [ -f "$GALERA_PROVIDER" ] && command -v rsync >/dev/null || {
    echo "servers.sh: Galera needs mariadb-server, galera-4 and rsync (apt-get install galera-4 rsync)" >&2; return 1; }
  local g; g=$(galera_dir)
  if [ -f "$g/ready" ]; then echo "servers.sh: Galera cluster already running" >&2; return 0; fi
  stop_galera
  mkdir -p "$g"; chmod 700 "$g"
  [ "$(id -u)" = 0 ] && chown mysql:mysql "$g"
  new_password >"$g/password"; chmod 600 "$g/password"
  local t0; t0=$(date +%s.%N)
  local n gcomm="" ports
  for n in $(seq 1 $GALERA_NODES); do
    mkdir -p "$g/node$n/data"
    ports=""
    # Twelve ports are chosen before any node binds one: none twice (scripts/lib.sh).
    for _ in 1 2 3 4; do ports="$ports${ports:+ }$(free_port $(cat "$g"/node*/ports 2>/dev/null) $ports)"; done
    echo "$ports" >"$g/node$n/ports"
    gcomm="$gcomm${gcomm:+,}127.0.0.1:$(echo "$ports" | cut -d' ' -f2)"
  done
  [ "$(id -u)" = 0 ] && chown -R mysql:mysql "$g"
  mariadb-install-db --no-defaults --datadir="$g/node1/data" $([ "$(id -u)" = 0 ] && echo --user=mysql) \
    --auth-root-authentication-method=normal --skip-test-db >"$g/node1/install.log" 2>&1 ||
    { echo "galera.sh: mariadb-install-db failed: see $g/node1/install.log" >&2; return 1; }
  galera_start_node 1 "$gcomm" --wsrep-new-cluster
  galera_wait_node 1 1 || return 1
  # Users and databases are DDL: replicated in total order to every node that joins later (by the state transfer).
  mariadb --no-defaults --socket="$g/node1/s.sock" -uroot -e "
    CREATE DATABASE txtest;
    CREATE USER 'txtest'@'127.0.0.1' IDENTIFIED BY '$(cat "$g/password")';
    GRANT ALL PRIVILEGES ON *.* TO 'txtest'@'127.0.0.1';"
  # Joiners one at a time: a donor serves one state transfer at a time.
  for n in $(seq 2 $GALERA_NODES); do
    galera_start_node "$n" "$gcomm"
    galera_wait_node "$n" "$n" || return 1
  done
  for n in $(seq 1 $GALERA_NODES); do galera_wait_node "$n" $GALERA_NODES || return 1; done
  touch "$g/ready"
  echo "servers.sh: Galera cluster of $GALERA_NODES MariaDB $(/usr/sbin/mariadbd --version | awk '{print $3}') nodes" \
    "on 127.0.0.1:$(galera_sql_ports | tr ' ' ','), Synced and Primary after" \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" >&2
}

galera_sql_ports() {
  local n out=""
  for n in $(seq 1 $GALERA_NODES); do out="$out${out:+ }$(cut -d' ' -f1 <"$(galera_dir)/node$n/ports")"; done
  echo "$out"
}

# Ends node N's process group (the node and the state-transfer processes it started), by the pid it was given.
galera_kill_node() {
  local f; f="$(galera_dir)/node$1/pid"
  [ -f "$f" ] && kill -9 -- "-$(cat "$f")" 2>/dev/null || true
}

# Ends every node by its own pid (SIGKILL: the data is thrown away) and removes the directory.
stop_galera() {
  local g n; g=$(galera_dir)
  for n in $(seq 1 $GALERA_NODES); do
    galera_kill_node "$n"
  done
  rm -rf "$g"
}

# The TXPROP_TARGETS entry of a running cluster (nothing when none runs).
galera_target() {
  local g p hosts=""; g=$(galera_dir)
  [ -f "$g/ready" ] || return 0
  for p in $(galera_sql_ports); do hosts="$hosts${hosts:+,}127.0.0.1:$p"; done
  echo "galera://txtest:$(cat "$g/password")@$hosts/txtest"
}
