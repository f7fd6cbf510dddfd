// test-lane: beside
// Validity checked against physics on real redis-servers, one client: a Redlock whose validity is
// counted from after its votes, paused as its last vote's reply comes in, reports nearly its whole
// TTL while its keys have been set for the pause: UNSAFE, overstated-validity. The built-in Redlock
// (monotonic clock) under the same pause counts it and is not flagged. The same for a renew that
// reports its validity: counted from after its reply, overstated (the renew named); from before its
// request, not flagged, and the renew's valid_ms is in the history. A process client (Python, its
// requests seen where they reach the fault proxy) under a slowed link: counted from after its
// replies, its acquire and renew are overstated; from before its requests, not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { anomalyTypes, lockpick, tempStore, type CliResult } from './run-helpers.ts';

/** One client, one attempt, paused 300 ms at `point` inside its acquire; TTL 1 s. */
function replayPause(lockSpec: object, point: string, options: object = {}): Promise<CliResult> {
  const dir = tempStore();
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    description: 'one client paused 300 ms as the reply to its last SET comes in', lock_spec: lockSpec, lock_options: options, property: 'lock',
    plan: {
      ttlMs: 1000,
      clients: [{ attempts: [{ key: 'k0', delayMs: 0, waitMs: 500, holdMs: 100, renew: false }] }],
      faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 300, target: 'c1', params: { point } }],
    },
  }));
  return lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json'], 60_000);
}

test('a Redlock counting its validity from after the votes: overstated-validity with one client', async () => {
  const r = await replayPause({ path: './test/fixtures/locks/redlock-validity-from-votes.ts' }, 'reply:acquire:3');
  assert.equal(r.code, 1, r.stderr.slice(-3000));
  assert.deepEqual([...new Set(anomalyTypes(r))], ['overstated-validity'], r.stderr.slice(-3000));
  assert.match(r.stderr, /reporting \d+ ms of validity, but its 1000 ms lease had at most \d+ ms left: its last request went out \d+ ms before the acquire returned/);
  // Shown as every anomaly is: JUnit and the timeline of the counterexample.
  const dir = path.join(r.summary!.dir, 'counterexample');
  assert.match(readFileSync(path.join(dir, 'junit.xml'), 'utf8'), /UNSAFE: 1 anomaly \(overstated-validity\)/);
  assert.match(readFileSync(path.join(dir, 'timeline.html'), 'utf8'), /overstated-validity/);
});

test('the built-in Redlock under the same pause counts it: not flagged', async () => {
  const r = await replayPause({ name: 'redlock' }, 'reply:acquire:5', { clock: 'monotonic' });
  assert.notEqual(r.code, 1, r.stderr.slice(-3000));
  assert.equal(r.summary!.lockViolations, 0);
  // The check did bite: the pause is in sent_ms, and the validity reported leaves it out.
  const oks = readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((e) => e.f === 'acquire' && e.type === 'ok');
  assert.equal(oks.length, 1, JSON.stringify(oks));
  assert.ok(oks[0].sent_ms >= 290 && oks[0].valid_ms <= oks[0].lease_ms - oks[0].sent_ms, JSON.stringify(oks[0]));
});

/** One client holding 400 ms with a renew half way, paused 300 ms as the renew's reply comes in; TTL 1 s. */
function replayRenewPause(renewClock: 'before' | 'after'): Promise<CliResult> {
  const dir = tempStore();
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    description: 'one client paused 300 ms as the reply to its renew comes in', lock_spec: { path: './test/fixtures/locks/renew-validity.ts' },
    lock_options: { renewClock }, property: 'lock',
    plan: {
      ttlMs: 1000,
      clients: [{ attempts: [{ key: 'k0', delayMs: 0, waitMs: 500, holdMs: 400, renew: true }] }],
      faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 300, target: 'c1', params: { point: 'reply:renew:1' } }],
    },
  }));
  return lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json'], 60_000);
}

const renewOks = (r: CliResult) => readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean)
  .map((l) => JSON.parse(l)).filter((e) => e.f === 'renew' && e.type === 'ok');

test('a renew that counts its validity from after its reply: overstated-validity, the renew named', async () => {
  const r = await replayRenewPause('after');
  assert.equal(r.code, 1, r.stderr.slice(-3000));
  assert.deepEqual([...new Set(anomalyTypes(r))], ['overstated-validity'], r.stderr.slice(-3000));
  assert.match(r.stderr, /renew of lock "[^"]+" at line \d+ returned ok at line \d+ reporting \d+ ms of validity, but its 1000 ms lease had at most \d+ ms left: its last request went out \d+ ms before the renew returned/);
});

test('a renew that counts its validity from before its request: not flagged, its validity recorded', async () => {
  const r = await replayRenewPause('before');
  assert.notEqual(r.code, 1, r.stderr.slice(-3000));
  assert.equal(r.summary!.lockViolations, 0);
  const oks = renewOks(r);
  assert.equal(oks.length, 1, JSON.stringify(oks));
  // The pause is in sent_ms, and the validity the renew reported leaves it out.
  assert.ok(oks[0].sent_ms >= 290 && oks[0].valid_ms > 0 && oks[0].valid_ms <= 1000 - oks[0].sent_ms, JSON.stringify(oks[0]));
});

/**
 * A process client (Python, another process: its sends are seen where they reach the fault proxy)
 * holding 1 s with a renew half way, its link slowed 200 ms each way; TTL 3 s.
 */
function replayProcessLatency(countFrom: 'before' | 'after'): Promise<CliResult> {
  const dir = tempStore();
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    description: "one process client, its link slowed 200 ms each way", lock_spec: { path: `./test/fixtures/process-clients/redis-validity-${countFrom}.json` }, property: 'lock',
    plan: {
      ttlMs: 3000,
      clients: [{ attempts: [{ key: 'k0', delayMs: 300, waitMs: 2000, holdMs: 1000, renew: true }] }],
      faults: [{ kind: 'latency', at_ms: 0, duration_ms: 4000, target: 'n1', params: { latency_ms: 200 } }],
    },
  }));
  return lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json'], 60_000);
}

const grantOks = (r: CliResult) => readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean)
  .map((l) => JSON.parse(l)).filter((e) => (e.f === 'acquire' || e.f === 'renew') && e.type === 'ok');

test("a process client counting its validity from after its replies: its acquire and renew overstated, seen by the fault proxy", async () => {
  const r = await replayProcessLatency('after');
  assert.equal(r.code, 1, r.stderr.slice(-3000));
  assert.deepEqual([...new Set(anomalyTypes(r))], ['overstated-validity'], r.stderr.slice(-3000));
  assert.match(r.stderr, /c1's acquire of lock "[^"]+" at line \d+ returned ok at line \d+ reporting \d+ ms of validity, but its 3000 ms lease had at most \d+ ms left/);
  assert.match(r.stderr, /c1's renew of lock "[^"]+" at line \d+ returned ok/);
});

test('a process client counting its validity from before its requests: not flagged, the round trip in sent_ms', async () => {
  const r = await replayProcessLatency('before');
  assert.notEqual(r.code, 1, r.stderr.slice(-3000));
  assert.equal(r.summary!.lockViolations, 0);
  const oks = grantOks(r);
  assert.deepEqual(oks.map((e) => e.f), ['acquire', 'renew'], JSON.stringify(oks));
  // The 400 ms round trip is in sent_ms (the last bytes reached the proxy before the latency held them), and the validity leaves it out.
  for (const e of oks) assert.ok(e.sent_ms >= 390 && e.valid_ms > 0 && e.valid_ms <= 3000 - e.sent_ms, JSON.stringify(e));
  // The coverage says the check ran.
  assert.match(r.stderr, /validity reported on 2 grant\(s\) \(acquire or renew ok\), each checked against its lease/);
});
