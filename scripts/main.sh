#!/usr/bin/env bash
# The main job on the embedded default (local servers): installs what it needs,
# then hammers a lock under faults, checks every run, shrinks a violation and
# writes the report. Any arguments replace the default `lockpick run` options.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ $# -eq 0 ]; then
  # The first unlock of the three-unlocks post (plain DEL) under a client pause longer than the lease.
  set -- --lock redis-set-px-del --faults client-pause --clients 3 --time 60
fi
echo "== node bin/lockpick.mjs run $*"
exec node bin/lockpick.mjs run "$@"
