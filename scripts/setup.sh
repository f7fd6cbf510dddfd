#!/usr/bin/env bash
# Installs what lockpick needs, idempotently, saying what and why.
#   OS packages: the real servers locks are tested against (root runs apt-get).
#   npm packages: the project's dependencies (npm ci, when node_modules is stale).
#   The clock shim: a tiny LD_PRELOAD library built with cc (native/clockshim.c).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*"; }

# --- OS packages -------------------------------------------------------------
declare -A WHY=(
  [redis-server]="Redis lock recipes run against real redis-server processes"
  [redis-sentinel]="the Sentinel failover topology"
  [zookeeper]="ZooKeeper ensembles (ephemeral sequential node locks)"
  [mariadb-server]="MySQL-family locks (unique-key insert, SELECT ... FOR UPDATE)"
  [iptables]="cutting links that cannot be routed through the fault proxy"
  [gcc]="building the clock shim (native/clockshim.c)"
)
missing=()
for pkg in "${!WHY[@]}"; do
  if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then :; else missing+=("$pkg"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  for pkg in "${missing[@]}"; do say "will install $pkg: ${WHY[$pkg]}"; done
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  say "installed: ${missing[*]}"
else
  say "OS packages present: ${!WHY[*]}"
fi

# --- npm packages ------------------------------------------------------------
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
else
  say "npm dependencies up to date"
fi

# --- clock shim ---------------------------------------------------------------
mkdir -p build
if [ -f native/clockshim.c ] && { [ ! -f build/libclockshim.so ] || [ native/clockshim.c -nt build/libclockshim.so ]; }; then
  say "building the clock shim build/libclockshim.so"
  cc -O2 -shared -fPIC -o build/libclockshim.so native/clockshim.c
else
  say "clock shim up to date"
fi
