#!/usr/bin/env bash
# The version matrix (issue 19): property suites and scenario files across PostgreSQL versions and levels.
#   scripts/version_matrix.sh [-c cases] [-s suites] [-l levels] [-f scenarios] [-o out] VERSION...
# VERSION: `debian` (Debian's server, target name postgresql), a version for scripts/pg_version.sh (12, 17.10: the
# npm registry's build, target name postgresql12, postgresql17_10), or the URI of a PostgreSQL server already running,
# with a name= parameter (a minor release neither carries, e.g. Debian's newer package unpacked by hand). Defaults: -c 100 cases per suite, target and
# level; -s "Wss AdyaDocumented AdyaClaimed Atomicity Sdg Troc"; -l rc,rr,ser; -f '*' (a gtest pattern over the
# scenario files' test names, e.g. 'pg_*'; -f '' runs none; -s '' runs no suite); -o version-matrix.
# Each version is fetched (timed, cached or cold), started in a private server folder, and run alone (one version at a
# time, so versions do not compete for the cores); every server is stopped at the end. Writes <out>/version-matrix.md,
# <out>/version-matrix.html, the run records <out>/runs.jsonl (TXPROP_SUMMARY_FILE records plus this script's), the
# logs and report folders under <out>/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cases=100 suites="Wss AdyaDocumented AdyaClaimed Atomicity Sdg Troc" levels=rc,rr,ser scenarios='*' out=version-matrix
usage() { echo "usage: scripts/version_matrix.sh [-c cases] [-s suites] [-l levels] [-f scenarios] [-o out] VERSION..." >&2; exit 2; }
while getopts c:s:l:f:o: opt; do
  case $opt in
    c) cases=$OPTARG ;; s) suites=$OPTARG ;; l) levels=$OPTARG ;; f) scenarios=$OPTARG ;; o) out=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
build=${TXPROP_BUILD_DIR:-build}
for b in "$build/tests/txprop_property_suites" "$build/tests/txprop_scenarios" "$build/tests/txprop_engine_bugs"; do
  [ -x "$b" ] || { echo "version_matrix: build $b first" >&2; exit 2; }
done
mkdir -p "$out/logs" "$out/reports"
out=$(cd "$out" && pwd)
: >"$out/runs.jsonl"
export TXPROP_SERVER_DIR
TXPROP_SERVER_DIR=$(mktemp -d /tmp/txprop-matrix.XXXXXX) && chmod 755 "$TXPROP_SERVER_DIR"  # the postgres user enters it
trap '"$root/scripts/servers.sh" stop' EXIT
filter=""
for s in $suites; do filter="$filter${filter:+:}$s.check/*"; done
record() { echo "$1" >>"$out/runs.jsonl"; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }  # seconds since $1, one decimal
start=$(date +%s)

for v in "$@"; do
  t0=$(date +%s.%N)
  if [[ $v == postgresql://* ]]; then
    # A server already running (e.g. a minor release neither Debian nor npm carries), named by its name= parameter.
    name=$(echo "$v" | grep -oE '[?&]name=[A-Za-z0-9_]+' | cut -d= -f2) fetch=0 cached=null npm=""
    [ -n "$name" ] || { echo "version_matrix: give $(TXPROP_TARGETS="$v" build/txprop targets) a name= parameter" >&2; exit 2; }
    uri=$v
  elif [ "$v" = debian ]; then
    scripts/servers.sh start postgresql >/dev/null
    name=postgresql fetch=0 cached=null npm=""  # nothing to fetch
    uri=$(scripts/servers.sh env | grep -o "postgresql://[^ \"]*" | grep -v '?name=' | head -n 1)
  else
    f0=$(date +%s.%N)
    # Fetched apart from the start, so the table tells download time from start time.
    scripts/pg_version.sh fetch "$v" >/dev/null 2>"$out/logs/fetch-$v.log" || { cat "$out/logs/fetch-$v.log" >&2; exit 1; }
    fetch=$(since "$f0")
    if grep -q "fetched" "$out/logs/fetch-$v.log"; then cached=false; else cached=true; fi
    t0=$(date +%s.%N)
    scripts/servers.sh start "postgresql@$v" >/dev/null
    name=postgresql${v//./_}
    npm=$(cat "$TXPROP_SERVER_DIR/pg-${v//./_}/native" | sed -E 's|.*/([^/]+)/package/native$|\1|')
    uri=$(scripts/servers.sh env | grep -o "postgresql://[^ \"]*?name=$name\b" | head -n 1)
  fi
  started=$(since "$t0")
  record "{\"type\":\"server\",\"target\":\"$name\",\"spec\":\"$v\",\"npm\":\"$npm\",\"fetch_seconds\":$fetch,\"cached\":$cached,\"start_seconds\":$started}"
  echo "version_matrix: $name: fetch $fetch s (cache: $cached), start $started s" >&2
  sep='?'; [[ $uri == *'?'* ]] && sep='&'
  r0=$(date +%s)
  # The suites and scenario files exit non-zero on a failure: that is a finding for the table, not the end of it.
  if [ -n "$filter" ]; then
    TXPROP_TARGETS="$uri${sep}levels=$levels" TXPROP_SUMMARY_FILE="$out/runs.jsonl" TXPROP_CASES=$cases \
      TXPROP_REPORT_DIR="$out/reports/$name" "$build/tests/txprop_property_suites" --gtest_filter="$filter" \
      >"$out/logs/$name-suites.log" 2>&1 || true
  fi
  if [ -n "$scenarios" ]; then
    # tests/scenarios/ and the engine bugs of tests/scenarios/engine_bugs/ (each expecting its bug on the versions that
    # have it and ok on the fixed ones: the table shows where it reproduces).
    for program in txprop_scenarios txprop_engine_bugs; do
      TXPROP_TARGETS="$uri${sep}levels=$levels" TXPROP_SUMMARY_FILE="$out/runs.jsonl" \
        TXPROP_REPORT_DIR="$out/reports/$name" "$build/tests/$program" --gtest_filter="Scenario.$scenarios" \
        >>"$out/logs/$name-scenarios.log" 2>&1 || true
    done
  fi
  record "{\"type\":\"version-end\",\"target\":\"$name\",\"wall_seconds\":$(( $(date +%s) - r0 ))}"
  echo "version_matrix: $name: suites and scenarios in $(( $(date +%s) - r0 )) s" >&2
  # One server at a time: stop this one before the next starts.
  scripts/servers.sh stop
  TXPROP_SERVER_DIR=$(mktemp -d /tmp/txprop-matrix.XXXXXX) && chmod 755 "$TXPROP_SERVER_DIR"  # the postgres user enters it
done
python3 scripts/version_matrix.py "$out" "$cases" "$levels" "$(( $(date +%s) - start ))"
echo "version_matrix: $out/version-matrix.md and $out/version-matrix.html" >&2
