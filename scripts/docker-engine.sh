#!/usr/bin/env bash
# A Docker engine for the --env docker tests, idempotently.
#   up:   if no engine answers, install Debian's docker.io (root: apt-get) when dockerd is
#         missing, start dockerd, wait until it answers. Remembers that it started it.
#   down: stop the dockerd that `up` started (and the containerd it runs), and remove what
#         dockerd left in iptables (its DOCKER* chains) and the docker0 bridge. An engine
#         that was already running is left alone.
# Never fails the caller: without an engine the docker tests skip, saying why.
set -uo pipefail

say() { printf 'docker-engine: %s\n' "$*"; }
STATE=/tmp/lockpick-dockerd.started
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"

up() {
  if docker info >/dev/null 2>&1; then say "a Docker engine answers already: using it"; return 0; fi
  if ! command -v dockerd >/dev/null 2>&1; then
    say "will install docker.io: the --env docker tests run servers as containers"
    { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends docker.io >/dev/null; } \
      || { say "WARNING: installing docker.io failed; the --env docker tests will be skipped"; return 0; }
  fi
  say "starting dockerd (log: /tmp/dockerd.log) for the --env docker tests; 'down' stops it afterwards"
  $SUDO sh -c 'dockerd --pidfile /tmp/lockpick-dockerd.pid > /tmp/dockerd.log 2>&1 &'
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  if docker info >/dev/null 2>&1; then
    echo started > "$STATE"
  else
    say "WARNING: dockerd did not answer within 60 s (see /tmp/dockerd.log); the --env docker tests will be skipped"
    $SUDO pkill -F /tmp/lockpick-dockerd.pid 2>/dev/null
  fi
  return 0
}

down() {
  [ -f "$STATE" ] || return 0
  rm -f "$STATE"
  local pid
  pid=$(cat /tmp/lockpick-dockerd.pid 2>/dev/null) || return 0
  say "stopping the dockerd it started (pid $pid)"
  $SUDO kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 30); do $SUDO kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  $SUDO kill -KILL "$pid" 2>/dev/null
  # dockerd leaves its chains and jumps behind; lockpick's own rules never use them.
  for table in filter nat; do
    $SUDO iptables -w 5 -t "$table" -S 2>/dev/null | grep -E '^-A [A-Z]+ .*(-j DOCKER|docker0)' | grep -vE '^-A DOCKER' | sed 's/^-A/-D/' \
      | while read -r rule; do eval "$SUDO iptables -w 5 -t $table $rule" 2>/dev/null; done
    for chain in $($SUDO iptables -w 5 -t "$table" -S 2>/dev/null | awk '/^-N DOCKER/ {print $2}'); do
      $SUDO iptables -w 5 -t "$table" -F "$chain" 2>/dev/null
    done
    for chain in $($SUDO iptables -w 5 -t "$table" -S 2>/dev/null | awk '/^-N DOCKER/ {print $2}'); do
      $SUDO iptables -w 5 -t "$table" -X "$chain" 2>/dev/null
    done
  done
  $SUDO ip link delete docker0 2>/dev/null
  return 0
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: bash scripts/docker-engine.sh up|down" >&2; exit 2 ;;
esac
