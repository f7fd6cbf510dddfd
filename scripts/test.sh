#!/usr/bin/env bash
# The test command: installs what it needs, type-checks, then runs the unit
# tests (pure logic) and the integration tests (real servers on loopback).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== typecheck (tsc --noEmit)"
npx tsc --noEmit
echo "== tests"
node --import tsx --test --test-concurrency=1 --test-reporter=spec test/unit/*.test.ts test/integration/*.test.ts
