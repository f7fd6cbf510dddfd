#!/usr/bin/env bash
# The test command: installs what it needs, type-checks, then runs the unit
# tests (pure logic) and the integration tests (real servers on loopback).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== typecheck (tsc --noEmit)"
npx tsc --noEmit
# Unit tests are pure logic: run them side by side. Integration tests share real
# servers, ports and the machine's clock budget: one file at a time.
status=0
echo "== unit tests (concurrently)"
node --import tsx --test --test-concurrency=2 --test-reporter=spec test/unit/*.test.ts || status=1
# The --env docker tests need a Docker engine: started here when none answers (Debian's
# docker.io installed if missing) and stopped when the tests end. LOCKPICK_DOCKER_TESTS=0 skips them.
if [ "${LOCKPICK_DOCKER_TESTS:-1}" = 1 ]; then
  trap 'bash scripts/docker-engine.sh down' EXIT
  bash scripts/docker-engine.sh up
fi
echo "== integration tests (one at a time, real servers)"
node --import tsx --test --test-concurrency=1 --test-reporter=spec test/integration/*.test.ts || status=1
exit "$status"
