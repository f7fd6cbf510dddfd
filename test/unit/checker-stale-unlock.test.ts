// Stale unlocks are named by checkHistory itself (checkers/stale-unlock.ts and the model's
// stale-release), with each acquire's own lease_ms and words that fit the lock's backend, so a
// run and `lockpick check` of its stored history name the same anomalies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHistory } from '../../checkers/index.ts';
import type { Backend, CheckResult } from '../../checkers/types.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { checkEvents } from '../../src/runner/session.ts';
import { toParsed } from '../support/history.ts';
import { inClientTerms } from '../../src/report/text.ts';

const ms = 1e6;
/** An event at `time` ms; acquire oks carry an 800 ms lease as the runner records it. */
const ev = (type: HistoryEvent['type'], f: string, process: number, time: number, value?: unknown): HistoryEvent => ({
  type, f, process, key: 'k', time: time * ms,
  ...(value !== undefined ? { value } : {}),
  ...(type === 'ok' && f === 'acquire' ? { lease_ms: 800 } : {}),
});
const check = (events: HistoryEvent[], backend?: Backend): CheckResult => checkHistory(toParsed(events), { model: 'mutex', backend });
const stale = (r: CheckResult) => r.anomalies.filter((a) => a.type === 'stale-release');

const sentWhileAnotherHeld = [
  ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1),
  ev('invoke', 'acquire', 1, 2), ev('ok', 'acquire', 1, 900),       // process 0's lease ran out at 800 ms
  ev('invoke', 'release', 0, 950), ev('ok', 'release', 0, 951),     // process 0 still believed: a double holder, and its unlock…
];

test('an unlock sent after another process took the lock, reported ok: stale-release naming both, in the backend\'s words', () => {
  const words: Record<string, RegExp> = {
    redis: /the unlock deleted the key, which by then was process 1's lock$/,
    zookeeper: /a ZooKeeper unlock deletes only the client's own sequential znode, which was already gone, so it cannot have freed process 1's lock; it should have answered that the lock was lost$/,
    mysql: /the unlock deleted the lock's row, which by then was process 1's$/,
    neutral: /the unlock freed the lock, which by then was process 1's$/,
  };
  for (const [backend, want] of Object.entries(words)) {
    const r = check(sentWhileAnotherHeld, backend === 'neutral' ? undefined : backend as Backend);
    assert.deepEqual(r.anomalies.map((a) => a.type), ['double-holder', 'stale-release'], backend);
    const [a] = stale(r);
    assert.deepEqual(a!.processes, [0, 1]);
    assert.match(a!.message, /^process 0's release of lock "k" at line 5 returned ok, but process 0 was not the holder: process 0's hold from line 2 had ended: its 800 ms lease \(from line 1\) had run out and process 1 acquired it at line 4; /);
    assert.match(a!.message, want, backend);
  }
});

test('an owner-checked unlock that says lost is no stale unlock', () => {
  const lost = sentWhileAnotherHeld.slice(0, 5).concat(ev('ok', 'release', 0, 951, { lost: true }));
  assert.deepEqual(stale(check(lost, 'redis')), []);
});

test('the backend comes from the history\'s run-start record unless given', () => {
  const start = (backend: string): HistoryEvent => ({ process: 'nemesis', type: 'info', f: 'run-start', value: { run: 1, lock: 'x', backend } });
  assert.match(stale(check([start('zookeeper'), ...sentWhileAnotherHeld]))[0]!.message, /ZooKeeper unlock/);
  assert.match(stale(check([start('zookeeper'), ...sentWhileAnotherHeld], 'redis'))[0]!.message, /deleted the key/);
  // A registered backend's own words (etcd's, from its TopologyDef); an unknown one gets general words.
  assert.match(stale(check([start('etcd'), ...sentWhileAnotherHeld]))[0]!.message, /deleted the lock key \(or revoked a lease\)/);
  assert.match(stale(check([start('consul'), ...sentWhileAnotherHeld]))[0]!.message, /the unlock freed the lock, which by then was process 1's$/);
  // A topology with words of its own (PgBouncer shares server sessions) is named beside its backend and wins; plain PostgreSQL's say nothing was freed.
  const pg = (topology?: string): HistoryEvent => ({ process: 'nemesis', type: 'info', f: 'run-start', value: { run: 1, lock: 'x', backend: 'postgres', ...(topology ? { topology } : {}) } });
  assert.match(stale(check([pg(), ...sentWhileAnotherHeld]))[0]!.message, /each client here has its own: it cannot have freed process 1's lock, yet the client reported a release/);
  assert.match(stale(check([pg('postgres'), ...sentWhileAnotherHeld]))[0]!.message, /cannot have freed process 1's lock/);
  assert.match(stale(check([pg('postgres-pgbouncer'), ...sentWhileAnotherHeld]))[0]!.message, /that session was shared \(a pooler's server connection\), so it freed process 1's lock$/);
  // An unknown topology (a newer lockpick's) falls back to its backend's words.
  assert.match(stale(check([pg('postgres-pgcat'), ...sentWhileAnotherHeld]))[0]!.message, /cannot have freed process 1's lock/);
  // The runner's checkEvents is checkHistory: the same anomalies as `lockpick check` of the file.
  const events = [start('redis'), ...sentWhileAnotherHeld];
  assert.deepEqual(checkEvents(events, 'mutex', 10_000).anomalies, check(events).anomalies);
});

/** A double holder of processes 8 and 9 at the end, so the key is invalid for another reason. */
const thenDoubleHolder = (from: number) => [ev('invoke', 'acquire', 8, from), ev('ok', 'acquire', 8, from + 1), ev('invoke', 'acquire', 9, from + 2), ev('ok', 'acquire', 9, from + 3)];

test('C: an unlock sent after its own lease ran out, reported ok, is named when the key is invalid (alone: beside its exposure)', () => {
  const late = [ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1), ev('invoke', 'release', 0, 1300), ev('ok', 'release', 0, 1301)];
  // Alone nobody else took the lock, but its client believed past its lease: an exposure, which
  // says the late unlock itself (no stale unlock named: it took nobody's lock).
  const alone = check(late);
  assert.equal(alone.valid, false);
  assert.deepEqual(alone.anomalies.map((x) => x.type), ['exposure']);
  const r = check([...late, ...thenDoubleHolder(1400)], 'redis');
  const [a] = stale(r);
  assert.deepEqual(a!.processes, [0]);
  assert.match(a!.message, /process 0 unlocked lock "k" at line 3, 499 ms after its 800 ms lease had run out, and the unlock reported success: its key had expired, so it cannot have deleted its own lock/);
  // Words from the record, not a guess: no claim that this unlock skipped the owner check.
  assert.doesNotMatch(a!.message, /a DEL that does not check the owner/);
  assert.match(stale(check([...late, ...thenDoubleHolder(1400)], 'zookeeper'))[0]!.message, /its znode was gone with its session by then/);
  // Renewed at 400 ms (its ok at 401): the lease runs from there, so the unlock at 1300 ms is 99 ms late, dated from the renewal.
  const renewed = [late[0]!, late[1]!, ev('invoke', 'renew', 0, 400), ev('ok', 'renew', 0, 401), late[2]!, late[3]!];
  const [b] = stale(check([...renewed, ...thenDoubleHolder(1400)], 'redis'));
  assert.match(b!.message, /process 0 unlocked lock "k" at line 5, 99 ms after its 800 ms lease \(renewed at line 4\) had run out/);
  // Renewed late enough that the unlock came inside the lease: no stale unlock at all.
  const inside = [late[0]!, late[1]!, ev('invoke', 'renew', 0, 1000), ev('ok', 'renew', 0, 1001), late[2]!, late[3]!];
  assert.deepEqual(stale(check([...inside, ...thenDoubleHolder(1400)], 'redis')), []);
  // Without lease_ms on the acquire there is no lease to outlive.
  const noLease = late.map(({ lease_ms: _, ...e }) => e as HistoryEvent);
  assert.deepEqual(stale(check([...noLease, ...thenDoubleHolder(1400)])), []);
});

const inFlight = [
  ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1),
  ev('invoke', 'release', 0, 100),                       // GET matched, then a pause
  ev('invoke', 'acquire', 1, 200), ev('ok', 'acquire', 1, 801),
  ev('ok', 'release', 0, 900),                           // the DEL removed process 1's key
];

test('B: an unlock in flight across another acquire, then a third process gets in within that one\'s lease', () => {
  const r = check([...inFlight, ev('invoke', 'acquire', 2, 850), ev('ok', 'acquire', 2, 901)], 'redis');
  assert.deepEqual(r.anomalies.map((a) => a.type).sort(), ['double-holder', 'stale-release']);
  const [a] = stale(r);
  assert.deepEqual(a!.processes, [0, 1, 2]);
  assert.match(a!.message, /process 0's unlock of lock "k" \(lines 3–6\) was still running when process 1 acquired it \(line 5\); then process 2 acquired it \(line 8\) while process 1 held it within its lease: the unlock deleted the key, which by then was process 1's lock/);
  // In the user's terms every process is a client (the report's rewrite finds each one).
  assert.match(inClientTerms(a!.message, new Map([[0, 'c1'], [1, 'c2'], [2, 'c3']])), /c1's unlock .* when c2 acquired it .* then c3 acquired it \(line 8\) while c2 held it within its lease: the unlock deleted the key, which by then was c2's lock/);
  // The unlocking process itself may be the one that gets in next.
  const self = check([...inFlight, ev('invoke', 'acquire', 0, 901), ev('ok', 'acquire', 0, 902)], 'redis');
  assert.deepEqual(stale(self)[0]!.processes, [0, 1, 0]);
  // A ZooKeeper unlock deletes only its own znode: it is not blamed.
  assert.deepEqual(stale(check([...inFlight, ev('invoke', 'acquire', 2, 850), ev('ok', 'acquire', 2, 901)], 'zookeeper')), []);
});

test('a clean history has none', () => {
  const r = check([ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1), ev('invoke', 'release', 0, 100), ev('ok', 'release', 0, 101),
    ev('invoke', 'acquire', 1, 102), ev('ok', 'acquire', 1, 103), ev('invoke', 'release', 1, 200), ev('ok', 'release', 1, 201)]);
  assert.equal(r.valid, true);
  assert.deepEqual(r.anomalies, []);
});

test('B2: the unlock\'s reply raced the next acquire\'s reply, after the unlocker\'s lease had run out', () => {
  const r = check([
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1),
    ev('invoke', 'release', 0, 100),                        // paused after the compare
    ev('invoke', 'acquire', 1, 50),
    ev('invoke', 'acquire', 2, 60),
    ev('ok', 'release', 0, 1000),                           // its DEL ran just after process 1's SET…
    ev('ok', 'acquire', 1, 1001),                           // …whose reply came in second
    ev('ok', 'acquire', 2, 1050),
    ev('invoke', 'release', 1, 1100), ev('ok', 'release', 1, 1101),
  ], 'redis');
  // (Process 1's own lease, counted from its invoke at 50 ms, had run out when process 2 got in:
  // its release is the model's stale-release; the cause named here is process 0's unlock.)
  const a = stale(r).find((x) => x.processes.length === 3);
  assert.deepEqual(a!.processes, [0, 1, 2]);
  assert.match(a!.message, /finished 199 ms after its 800 ms lease had run out, while process 1's acquire was in flight/);
});

test('B2 dates the unlocker\'s lease from its last renewal', () => {
  const raced = (renewAt: number) => check([
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1),
    ev('invoke', 'renew', 0, renewAt), ev('ok', 'renew', 0, renewAt + 1),
    ev('invoke', 'release', 0, 100 + renewAt),
    ev('invoke', 'acquire', 1, 150 + renewAt),
    ev('invoke', 'acquire', 2, 160 + renewAt),
    ev('ok', 'release', 0, 1000 + renewAt),
    ev('ok', 'acquire', 1, 1001 + renewAt),
    ev('ok', 'acquire', 2, 1050 + renewAt),
    ev('invoke', 'release', 1, 1100 + renewAt), ev('ok', 'release', 1, 1101 + renewAt),
  ], 'redis');
  // Renewed at 50 ms (ok at 51): the lease ran to 851 ms, the unlock finished at 1050 ms.
  const a = stale(raced(50)).find((x) => x.processes.length === 3);
  assert.match(a!.message, /finished 199 ms after its 800 ms lease \(renewed at line 4\) had run out/);
});

test('B2 needs the unlock to end after its own lease: a normal hand-over is not blamed', () => {
  const r = check([
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1),
    ev('invoke', 'acquire', 1, 50),
    ev('invoke', 'acquire', 2, 60),
    ev('invoke', 'release', 0, 100), ev('ok', 'release', 0, 101),
    ev('ok', 'acquire', 1, 102),
    ev('ok', 'acquire', 2, 150),                            // a double holder with another cause
  ], 'redis');
  assert.equal(r.valid, false);
  assert.deepEqual(stale(r), []);
});
