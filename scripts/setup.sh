#!/usr/bin/env bash
# Installs what txprop needs from Debian 12 packages (when missing) and builds it in ./build.
# Used by scripts/main.sh and scripts/test.sh; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake g++ make pkg-config libgtest-dev librapidcheck-dev libfmt-dev libpqxx-dev libmariadb-dev
          libsqlite3-dev sqlite3 postgresql mariadb-server mariadb-client graphviz galera-4 rsync)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup.sh: missing packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
    exit 1
  fi
  echo "setup.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# TXPROP_WERROR=ON (scripts/test.sh under CI): warnings in the libraries fail the build.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTXPROP_WERROR="${TXPROP_WERROR:-OFF}" >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)"
