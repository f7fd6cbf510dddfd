#!/usr/bin/env bash
# The test command: installs what it needs, type-checks, then runs the unit
# tests (pure logic) and the integration tests (real servers on loopback).
set -euo pipefail
cd "$(dirname "$0")/.."
# The checker's conformance on public corpora (Jepsen etcd and Knossos EDN histories with known
# verdicts) needs a folder that is not part of this repository: the tests read LOCKPICK_CORPUS and
# are skipped, saying so, without it. CI lays shared/ beside the clone: its corpus is used then.
beside="$(dirname "$PWD")/shared/corpus"
if [ -z "${LOCKPICK_CORPUS:-}" ] && [ -d "$beside" ]; then
  export LOCKPICK_CORPUS="$beside"
fi
# Every run keeps each test's duration in .test-times/ (unit.jsonl, integration.jsonl);
# `bash scripts/test.sh --slowest` prints the slowest ten tests and files of the last run;
# `bash scripts/test.sh --weights` keeps its files' times in test/lane-weights.tsv, by which the lanes are filled.
times=.test-times
if [ "${1:-}" = --weights ]; then
  node scripts/test-lanes.mjs --weights > test/lane-weights.tsv && echo "test/lane-weights.tsv: $(grep -vc '^#' test/lane-weights.tsv) files' times from the last run"
  exit
fi
if [ "${1:-}" = --slowest ]; then
  exec node scripts/test-times.mjs "$times"/*.jsonl
fi
mkdir -p "$times"
rm -f "$times"/*.jsonl "$times"/*-seconds
report=(--test-reporter=spec --test-reporter-destination=stdout --test-reporter=./scripts/test-times.mjs)
# A hung test must fail with its file's name, not hold CI until CI's own limit: each test file gets
# a time limit (LOCKPICK_TEST_TIMEOUT_MS, 15 min; the slowest file takes about 4; node's runner
# applies --test-timeout to a whole file when it runs several), a file whose tests are done exits
# even with a handle left open, and each lane has a limit of its own (LOCKPICK_LANE_LIMIT_S, 45 min;
# a lane takes about 20): past it the lane is stopped, whole.
test_limits=(--test-timeout="${LOCKPICK_TEST_TIMEOUT_MS:-900000}" --test-force-exit)
lane_limit="${LOCKPICK_LANE_LIMIT_S:-2700}"
lane() { # lane NAME CMD...: runs CMD under the lane limit; says so if the limit stopped it
  local name=$1; shift
  local rc=0
  timeout -k 30 "$lane_limit" "$@" || rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "== $name STOPPED after ${lane_limit} s (LOCKPICK_LANE_LIMIT_S): a test hung (its file was not named by the per-file limit: run the lane's next file alone)"
  fi
  return "$rc"
}
t0=$SECONDS
bash scripts/setup.sh
t_setup=$((SECONDS - t0))
# The --env docker tests need a Docker engine: with LOCKPICK_DOCKER_TESTS=1 it is started here when
# none answers (Debian's docker.io installed if missing) and stopped when the tests end; without it
# they run only if an engine already answers, and skip, saying so, otherwise (they take about
# 4 minutes, and installing the engine on a fresh machine more).
# It starts in the background (its output kept in a file and shown before the integration
# tests), so installing and starting it costs no time beside the type check and unit tests.
docker_log=""
if [ "${LOCKPICK_DOCKER_TESTS:-0}" = 1 ]; then
  docker_log=$(mktemp)
  bash scripts/docker-engine.sh up > "$docker_log" 2>&1 &
  docker_pid=$!
  # Stopped on any exit, once 'up' is through (a failed build must not leave it starting).
  trap 'wait "$docker_pid" 2>/dev/null; bash scripts/docker-engine.sh down' EXIT
fi
# The type check (tests included) runs beside the tests, which need only dist/: a type error
# still fails the run (its report is shown after the tests), and costs no time before them.
if [ -n "${LOCKPICK_CORPUS:-}" ]; then echo "== public corpora: LOCKPICK_CORPUS=$LOCKPICK_CORPUS"; else echo "== public corpora: LOCKPICK_CORPUS not set (no shared/corpus beside the clone): their tests are skipped"; fi
echo "== typecheck (tsc --noEmit), beside the tests (its report follows theirs)"
tsc_log=$(mktemp)
npx tsc --noEmit > "$tsc_log" 2>&1 &
tsc_pid=$!
# The CLI and its client workers then start from dist/ without compiling TypeScript (bin/lockpick.mjs
# runs a fresh dist/): every integration test starts them many times.
echo "== build dist/ (npm run build)"
npm run build --silent
t_build=$((SECONDS - t0 - t_setup))
# Lanes, each one file at a time. The serial lane: integration files on real servers whose
# faults and verdicts hang on timing (a Sentinel failover, a session expiring), which share the
# machine's clock budget. The lanes beside it: the unit tests (pure logic), and the integration
# files marked by a line `// test-lane: beside` (they start no server, or servers of their own on
# free ports whose verdicts do not hang on fine timing: the package, the library API, the demo,
# JUnit). Their reports are kept in files and shown after the serial lane's.
status=0
mapfile -t beside_all < <(grep -l '^// test-lane: beside' test/integration/*.test.ts)
mapfile -t serial < <(grep -L '^// test-lane: beside' test/integration/*.test.ts)
# The files beside share the lanes beside the serial one, the first of which runs the unit tests
# first: longest first, each to the lane with the least time so far, by a run's times kept in
# test/lane-weights.tsv (scripts/test-lanes.mjs; `bash scripts/test.sh --weights` rewrites it from
# the last run). Two lanes beside the serial one (LOCKPICK_BESIDE_LANES): with a third, the two
# cores were nine tenths busy and the suite a minute shorter, but timing-bound tests broke under
# the load (a Curator search found a grant no confirmation run saw again; a fenced JDBC search met
# no broken lock in its few runs).
nbeside="${LOCKPICK_BESIDE_LANES:-2}"
mapfile -t lane_files < <(node scripts/test-lanes.mjs "$nbeside" "${beside_all[@]}")
echo "== unit tests, then ${#beside_all[@]} integration files marked test-lane: beside, in ${nbeside} lane(s) beside the serial lane (their reports follow it)"
lane_pids=(); lane_logs=()
for ((k = 0; k < nbeside; k++)); do
  lane_logs[k]=$(mktemp)
  (
    u0=$SECONDS
    # shellcheck disable=SC2086 # the lane's files, split on spaces
    if [ "$k" -eq 0 ]; then files=(test/unit/*.test.ts ${lane_files[k]}); dest="$times/unit.jsonl"; else files=(${lane_files[k]}); dest="$times/beside-$k.jsonl"; fi
    rc=0
    if [ "${#files[@]}" -gt 0 ]; then
      lane "beside lane $k" node --import tsx --test --test-concurrency=1 "${test_limits[@]}" "${report[@]}" --test-reporter-destination="$dest" "${files[@]}" || rc=$?
    fi
    echo "== beside lane $k$([ "$k" -eq 0 ] && echo ' (unit tests first)') took $((SECONDS - u0)) s"
    echo "$((SECONDS - u0))" > "$times/beside-$k-seconds"
    exit "$rc"
  ) > "${lane_logs[k]}" 2>&1 &
  lane_pids[k]=$!
done
if [ -n "$docker_log" ]; then
  wait "$docker_pid" || true
  cat "$docker_log"
  rm -f "$docker_log"
fi
echo "== integration tests (${#serial[@]} files, one at a time, real servers; $((SECONDS - t0)) s so far)"
t1=$SECONDS
lane "the serial lane" node --import tsx --test --test-concurrency=1 "${test_limits[@]}" "${report[@]}" --test-reporter-destination="$times/integration.jsonl" "${serial[@]}" || status=1
t_serial=$((SECONDS - t1))
echo "== integration tests took $t_serial s"
for ((k = 0; k < nbeside; k++)); do
  wait "${lane_pids[k]}" || status=1
  echo "== beside lane $k (report)"
  cat "${lane_logs[k]}"
  rm -f "${lane_logs[k]}"
done
if wait "$tsc_pid"; then echo "== typecheck: clean"; else status=1; echo "== typecheck FAILED:"; fi
cat "$tsc_log"
rm -f "$tsc_log"
node scripts/test-times.mjs "$times"/*.jsonl || true
# Last, so the end of a long log says where the time went.
lanes=""; for ((k = 0; k < nbeside; k++)); do lanes+=", beside lane $k $(cat "$times/beside-$k-seconds" 2>/dev/null || echo '?') s"; done
echo "== $((SECONDS - t0)) s in all: setup ${t_setup} s, build ${t_build} s, serial lane ${t_serial} s${lanes} (all at the same time)"
exit "$status"
