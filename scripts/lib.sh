# What the server scripts share (servers.sh, pg_version.sh, and galera.sh through servers.sh): free ports, passwords,
# running a server's tools as its own user. Sourced, never run.

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A random free port below the kernel's ephemeral range (ip_local_port_range, 32768 by default) and not among the
# arguments (ports already given out but not bound yet). A port of the ephemeral range can become the source port of
# some connection between its choice and the server's bind: a Galera node failed so ("Address already in use") in 2
# of 3 starts on a busy machine.
free_port() {
  local low p
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "$low" -gt 21000 ] 2>/dev/null || low=32768
  while :; do
    p=$((20000 + $(od -An -tu4 -N4 /dev/urandom | tr -d ' ') % (low - 20000)))
    port_in_use "$p" && continue
    case " $* " in *" $p "*) continue ;; esac
    echo "$p"
    return
  done
}

new_password() { od -An -tx1 -N12 /dev/urandom | tr -d ' \n'; }

as_user() {  # run as $1 when root, else as ourselves
  local user=$1; shift
  if [ "$(id -u)" = 0 ]; then runuser -u "$user" -- "$@"; else "$@"; fi
}
