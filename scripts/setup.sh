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
  [postgresql]="PostgreSQL advisory locks (session, transaction, fenced)"
  [pgbouncer]="PostgreSQL locks through a transaction-pooling PgBouncer"
  [etcd-server]="etcd clusters (lease locks, the concurrency.Mutex algorithm)"
  [memcached]="memcached lock recipes (add, then delete or an owner-checked cas)"
  [nats-server]="NATS JetStream key-value lock recipes (create, then a plain or revision-checked delete)"
  [python3-etcd3]="the Python process client example on etcd (examples/process-clients/: python-etcd3's Lock)"
  [etcd-client]="etcdctl, Go's concurrency.Mutex as a process client (examples/process-clients/etcdctl_lock.py) and a real Go binary for the Go-executable check's tests"
  [iptables]="cutting links that cannot be routed through the fault proxy"
  [gcc]="building the clock shim (native/clockshim.c)"
  [g++]="building the zookeeper npm package's C client addon (node-gyp, during npm ci)"
  [make]="building the zookeeper npm package's C client addon (node-gyp, during npm ci)"
  [python3]="building the zookeeper npm package's C client addon (node-gyp, during npm ci)"
  [default-jre-headless]="the JVM ZooKeeper runs on"
  [python3-redis]="the Python process client examples (examples/process-clients/: redis-py's redis.lock.Lock)"
  [python3-kazoo]="the Python process client example on ZooKeeper (examples/process-clients/: kazoo's Lock)"
  [python3-pymemcache]="the Python process client on memcached (test/fixtures/process-clients/memcached_get_delete.py: pymemcache), whose release the proxy's memcached framing aims at"
  [default-jdk-headless]="javac for the Java process client examples (examples/process-clients/java/build.sh)"
  [libcurator-recipes-java]="the Java process client example on ZooKeeper (examples/process-clients/java/: Apache Curator's InterProcessMutex)"
  [libmariadb-java]="the Java process client example on MariaDB (examples/process-clients/java/: the database-lock post's unique-key lock over JDBC)"
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
# Chromium: the timeline browser tests open timeline.html in Debian's chromium (puppeteer-core,
# no browser download). Not needed to run lockpick, so a failed install only skips those tests.
if [ -x /usr/bin/chromium ]; then
  say "chromium present: /usr/bin/chromium (timeline browser tests)"
else
  say "will install chromium: the timeline browser tests render timeline.html in headless Chromium"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  if { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null; }; then
    say "installed: chromium"
  else
    say "note: chromium could not be installed: test/integration/timeline-browser.test.ts will be skipped"
  fi
fi
# A Chinese font for Chromium: lockpick serve's zh-CN pages (and their screenshots in docs/serve.md)
# drawn in Chinese, not boxes. Like chromium, only the browser test needs it.
if dpkg-query -W -f='${Status}' fonts-wqy-microhei 2>/dev/null | grep -q 'ok installed'; then
  say "fonts-wqy-microhei present (Chinese in the serve browser test)"
else
  say "will install fonts-wqy-microhei: the zh-CN pages of lockpick serve in headless Chromium"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  if DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends fonts-wqy-microhei >/dev/null; then
    say "installed: fonts-wqy-microhei"
  else
    say "note: fonts-wqy-microhei could not be installed: zh-CN screenshots show boxes (the test's assertions read text, not pixels)"
  fi
fi

# --- npm packages ------------------------------------------------------------
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
else
  say "npm dependencies up to date"
fi

# --- clock shim ---------------------------------------------------------------
# LD_PRELOAD library that moves a server's wall clock (libfaketime deadlocks redis 7).
mkdir -p build
if [ ! -f build/libclockshim.so ] || [ native/clockshim.c -nt build/libclockshim.so ]; then
  say "building the clock shim build/libclockshim.so (cc -shared -fPIC native/clockshim.c)"
  cc -O2 -Wall -shared -fPIC -o build/libclockshim.so native/clockshim.c
else
  say "clock shim up to date: build/libclockshim.so"
fi

# --- Java process client examples ----------------------------------------------
# Compiled once (build.sh does nothing when classes/ is newer than every source), so their
# recipe files run from a fresh clone.
sh examples/process-clients/java/build.sh
say "Java process client examples built: examples/process-clients/java/classes"

# --- what the local environment needs at run time ----------------------------
for bin in redis-server redis-sentinel java mariadbd mariadb-install-db pgbouncer etcd memcached nats-server cc; do
  if ! PATH="$PATH:/usr/sbin:/sbin" command -v "$bin" >/dev/null 2>&1; then
    say "ERROR: $bin is still missing after the install above; see the apt-get output" >&2
    exit 1
  fi
done
# Debian keeps PostgreSQL's server binaries off PATH, in /usr/lib/postgresql/<version>/bin (src/env/postgres.ts looks there).
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
  say "ERROR: initdb is still missing after the install above (Debian package postgresql)" >&2
  exit 1
fi
for jar in /usr/share/java/zookeeper.jar /usr/share/java/slf4j-simple.jar; do
  [ -r "$jar" ] || { say "ERROR: $jar missing (Debian package zookeeper)" >&2; exit 1; }
done
if [ "$(id -u)" -ne 0 ] || ! iptables -w 5 -t nat -S >/dev/null 2>&1; then
  say "note: not root or no iptables nat: node-to-node links will be direct (client links are still proxied)"
fi
# --- Docker (only when asked) --------------------------------------------------
# The --env docker tests need a Docker engine; scripts/test.sh starts one for them and stops it
# after. LOCKPICK_DOCKER_TESTS=1 starts one here too (and leaves it running), for running those
# test files by hand. Starting dockerd changes iptables (its DOCKER chains).
if [ "${LOCKPICK_DOCKER_TESTS:-}" = 1 ]; then bash scripts/docker-engine.sh up; fi
say "ready"
