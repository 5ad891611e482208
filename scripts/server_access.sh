# For the scripts that test txprop against the servers of scripts/servers.sh (fault_test.sh, shared_server_test.sh):
# SQL on them as their superusers, by their sockets in $TXPROP_SERVER_DIR, and their TXPROP_TARGETS entries as $PG
# and $MY. Sourced after `servers.sh start`, with $root set to the checkout.
# shellcheck source=lib.sh
source "$root/scripts/lib.sh"
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
pg() { as_user postgres "$PG_BIN/psql" -h "$TXPROP_SERVER_DIR/pg" -p "$(cat "$TXPROP_SERVER_DIR/pg/port")" -U postgres -qAt -c "$1" txtest; }
my() { mariadb --no-defaults --socket="$TXPROP_SERVER_DIR/mariadb/s.sock" -uroot -N -e "$1"; }
targets() { "$root/scripts/servers.sh" env | sed 's/^export TXPROP_TARGETS=//; s/"//g'; }
PG=$(targets | tr ' ' '\n' | grep '^postgresql:')
MY=$(targets | tr ' ' '\n' | grep '^mariadb:' | head -n 1)
