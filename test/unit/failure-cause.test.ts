// The failure-cause rules on hand-built stories (test/support/cause-history.ts): a double holder
// is inherent when a belief outlived its lease or a declared design property was broken by a fault,
// a bug when both beliefs were within their leases; a stale release is a bug; what the rules cannot
// tell is unknown, never inherent. What decides is the declared design, not the lock's name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Story } from '../support/cause-history.ts';
import { classifyRun, classesOf, lockDesign, runCauses, type LockDesign } from '../../src/runner/failure-cause.ts';
import { RECIPES } from '../../src/locks/registry.ts';
import fc from 'fast-check';
import { KINDS } from '../../nemesis/kinds.ts';
import type { KindDef } from '../../nemesis/fault.ts';

const LEASE: LockDesign = { leased: true, fencing: false, keepsAlive: false, restartForgets: false, asyncFailover: false, driftMs: 0 };
const natures = (s: Story, d: LockDesign) => classifyRun(s.run(), d).map((c) => c.nature);

/** c1 holds k0 from 0 ms (800 ms lease) and is paused from 100 ms for `pauseMs`; c2 acquires at `c2At`. */
function pausedHolder(pauseMs: number, c2At: number): Story {
  return new Story()
    .op('c1', 'acquire', 0, 2, { lease: 800 })
    .fault('client-pause', 100, 100 + pauseMs, { client: 'c1' })
    .op('c2', 'acquire', c2At, c2At + 2, { lease: 800 })
    .op('c1', 'release', 100 + pauseMs + 5, 100 + pauseMs + 6, { value: { lost: true } })
    .op('c2', 'release', c2At + 300, c2At + 301);
}

test('a holder paused past its lease, the lock taken meanwhile: inherent to an unfenced lease, said so', () => {
  const [c, ...rest] = classifyRun(pausedHolder(1100, 900).run(), LEASE);
  assert.equal(rest.length, 0);
  assert.equal(c!.nature, 'inherent');
  assert.equal(c!.key, 'inherent: double-holder · lease-outlived · client-pause@holding');
  assert.match(c!.words, /^inherent to an unfenced lease: a holder was paused past its lease \(client-pause, while it held the lock\)$/);
  // The same story at other instants is the same class (stable names).
  assert.equal(classifyRun(pausedHolder(1500, 1200).run(), LEASE)[0]!.key, c!.key);
  // With fencing the double holder is still the lease's, and the words say what protects the resource.
  assert.match(classifyRun(pausedHolder(1100, 900).run(), { ...LEASE, fencing: true })[0]!.words, /^inherent to a lease \(fencing protects the resource\)/);
});

test('a second holder let in while the first was within its lease, no fault to explain it: a bug of the lock', () => {
  const [c] = classifyRun(pausedHolder(300, 200).run(), LEASE);
  assert.equal(c!.nature, 'bug');
  assert.match(c!.key, /^bug: double-holder · within-lease · /);
  assert.match(c!.words, /^a bug in this lock: it let a second client in while the first held the lock within its lease/);
  // Just inside the lease by the clocks, but within a grant's own round trip of its end: not called a bug.
  const edge = new Story().op('c1', 'acquire', 0, 30, { lease: 800 }).op('c2', 'acquire', 600, 825, { lease: 800 }).run();
  assert.deepEqual(classifyRun(edge, LEASE).map((x) => x.nature), ['inherent']);
});

test('a stale DEL that freed the next holder\'s lock: a bug; the double holder it let in is its consequence, not a class of its own', () => {
  // c1 paused before its DEL past its lease; c2 takes the lock; the DEL lands and frees it; c3 gets in within c2's lease.
  const s = new Story()
    .op('c1', 'acquire', 0, 2, { lease: 800 })
    .fault('client-pause', 100, 1000, { client: 'c1', point: 'send:release:1' })
    .op('c1', 'release', 100, 1001)
    .op('c2', 'acquire', 850, 852, { lease: 800 })
    .op('c3', 'acquire', 1005, 1007, { lease: 800 })
    .op('c2', 'release', 1200, 1201)
    .op('c3', 'release', 1300, 1301);
  const r = s.run();
  const causes = runCauses(r, LEASE);
  assert.ok(causes.some((c) => c.anomaly === 'double-holder' && c.explained), JSON.stringify(causes));
  const classes = classifyRun(r, LEASE);
  assert.deepEqual(classes.map((c) => c.nature), ['bug']);
  assert.equal(classes[0]!.key, 'bug: stale-release · stale-release · client-pause@release');
  assert.match(classes[0]!.words, /^a bug in this lock: its release succeeded on a lock it no longer held \(client-pause, during its release\)$/);
});

test('one run with a lease outlived and a stale release beside it shows both classes, the bug first', () => {
  // c1 paused in its critical section past its lease (c2 gets in: inherent), then its unconditional DEL frees c2's lock (bug).
  const s = new Story()
    .op('c1', 'acquire', 0, 2, { lease: 800 })
    .fault('client-pause', 100, 1100, { client: 'c1', point: 'in-critical-section' })
    .op('c2', 'acquire', 900, 902, { lease: 800 })
    .op('c1', 'release', 1105, 1106)
    .op('c3', 'acquire', 1110, 1112, { lease: 800 })
    .op('c2', 'release', 1300, 1301);
  const classes = classifyRun(s.run(), LEASE);
  assert.deepEqual(classes.map((c) => c.nature), ['bug', 'inherent'], classes.map((c) => c.key).join(' | '));
  assert.match(classes[0]!.key, /stale-release/);
  assert.match(classes[1]!.key, /lease-outlived/);
});

test('a killed server restarted empty: inherent where the topology declares it forgets, a bug where it does not', () => {
  const story = () => new Story()
    .op('c1', 'acquire', 0, 2, { lease: 800 })
    .fault('kill', 50, 100, { target: 'n1', params: { persistence: 'none' } })
    .op('c2', 'acquire', 200, 202, { lease: 800 })
    .op('c2', 'release', 300, 301).op('c1', 'release', 400, 401, { value: { lost: true } });
  const forgets = classifyRun(story().run(), { ...LEASE, restartForgets: true })[0]!;
  assert.equal(forgets.nature, 'inherent');
  assert.match(forgets.words, /^inherent to a server that forgets its locks on restart/);
  assert.deepEqual(natures(story(), LEASE), ['bug']);
  // A restart with persistence asked for does not forget: not the design's failure.
  const aof = new Story().op('c1', 'acquire', 0, 2, { lease: 800 }).fault('kill', 50, 100, { target: 'n1', params: { persistence: 'aof-always' } })
    .op('c2', 'acquire', 200, 202, { lease: 800 });
  assert.deepEqual(natures(aof, { ...LEASE, restartForgets: true }), ['bug']);
  // A stop with no persistence param (server-term, a kill as started) restarts the servers as they
  // were started: it forgets where they were started without persistence, not where with AOF.
  const term = () => new Story().op('c1', 'acquire', 0, 2, { lease: 800 }).fault('server-term', 50, 100, { target: 'n1' })
    .op('c2', 'acquire', 200, 202, { lease: 800 });
  assert.deepEqual(natures(term(), { ...LEASE, restartForgets: true }), ['inherent']);
  assert.deepEqual(natures(term(), { ...LEASE, restartForgets: false, canForget: true }), ['bug']);
  // persistence: none forgets on a topology that can, even where its servers started with AOF.
  assert.deepEqual(natures(story(), { ...LEASE, restartForgets: false, canForget: true }), ['inherent']);
});

test('a failover over asynchronous replication, a server clock jump beyond the declared drift: inherent to those designs', () => {
  const around = (kind: string, value: Record<string, unknown>) => new Story()
    .op('c1', 'acquire', 0, 2, { lease: 800 }).fault(kind, 50, 150, value).op('c2', 'acquire', 200, 202, { lease: 800 });
  assert.deepEqual(natures(around('failover', { target: 'primary', nodes: ['n1', 'n2'] }), { ...LEASE, asyncFailover: true }), ['inherent']);
  assert.deepEqual(natures(around('failover', { target: 'primary', nodes: ['n1', 'n2'] }), LEASE), ['bug']);
  const bump = (delta: number) => around('clock-bump', { target: 'n1', params: { delta_ms: delta } });
  assert.deepEqual(natures(bump(1000), { ...LEASE, driftMs: 10 }), ['inherent']);
  assert.match(classifyRun(bump(1000).run(), LEASE)[0]!.words, /^inherent to a lease timed by the server's clock/);
  assert.deepEqual(natures(bump(5), { ...LEASE, driftMs: 10 }), ['bug']);
  // A client's clock is no server's: a clock fault on a client breaks no server lease.
  assert.deepEqual(natures(around('clock-bump', { target: 'c1', client: 'c1', params: { delta_ms: 1000 } }), LEASE), ['bug']);
});

test('what the rules cannot tell is unknown, never inherent: a lease kept alive out of sight, no lease recorded, a session lock under an unrelated fault', () => {
  // A lease kept alive out of sight: a pause of its holder longer than the lease stopped the keep-alives (inherent); a shorter one says nothing.
  assert.deepEqual(natures(pausedHolder(1100, 900), { ...LEASE, keepsAlive: true }), ['inherent']);
  const shortPause = new Story().op('c1', 'acquire', 0, 2, { lease: 800 }).fault('client-pause', 100, 400, { client: 'c1' })
    .op('c2', 'acquire', 1200, 1202, { lease: 800 }).op('c1', 'release', 1500, 1501, { value: { lost: true } });
  assert.deepEqual(shortPause.run().check.anomalies.map((a) => a.type), ['double-holder']);
  assert.deepEqual(natures(shortPause, { ...LEASE, keepsAlive: true }), ['unknown']);
  assert.deepEqual(natures(shortPause, LEASE), ['inherent']);
  // No fault at all: a lock that keeps its lease alive and still let a second client in has a bug.
  const noFault = new Story().op('c1', 'acquire', 0, 2, { lease: 800 }).op('c2', 'acquire', 1200, 1202, { lease: 800 });
  assert.deepEqual(natures(noFault, { ...LEASE, keepsAlive: true }), ['bug']);
  const noLease = new Story().op('c1', 'acquire', 0, 2).fault('client-pause', 100, 1200, { client: 'c1' }).op('c2', 'acquire', 900, 902);
  assert.deepEqual(natures(noLease, LEASE), ['unknown']);
  const session: LockDesign = { ...LEASE, leased: false, sessionMs: 2000 };
  assert.deepEqual(natures(noLease, session), ['unknown']);
  // Its session ended by the server (session-kill), or cut off past the session timeout: inherent to an unfenced session lock.
  const killed = new Story().op('c1', 'acquire', 0, 2).fault('session-kill', 100, 110, { client: 'c1' }).op('c2', 'acquire', 300, 302);
  assert.match(classifyRun(killed.run(), session)[0]!.words, /^inherent to an unfenced session lock: the holder's session ended under it/);
  // No fault at all: a bug.
  assert.deepEqual(natures(new Story().op('c1', 'acquire', 0, 2).op('c2', 'acquire', 300, 302), session), ['bug']);
  // Cut off: the session runs out sessionMs after the server last heard from the holder, which can
  // be before the cut began (a run under load: the waiter granted 1964 ms into the cut, 2022 ms
  // after the holder's acquire returned). Counted from the holder's last answer, not the cut.
  const cutAfter = (c2Done: number) => new Story().op('c1', 'acquire', 2930, 3020)
    .fault('partition', 3078, 6607, { target: 'client:c1', params: { point: 'in-critical-section' } })
    .op('c2', 'acquire', 3924, c2Done).op('c2', 'release', 5203, 5218).op('c1', 'release', 6590, 7424);
  assert.match(classifyRun(cutAfter(5042).run(), session)[0]!.key, /^inherent: double-holder · session-outlived · partition@/);
  // Granted 1.5 s after the holder's last answer: no session of 2 s had run out, not inherent.
  assert.deepEqual(natures(cutAfter(4520), session), ['unknown']);
  assert.deepEqual(classesOf([]).map((c) => c.nature), ['unknown']);
});

test('a cut that closes the connection ends a session that is its connection (PostgreSQL, MariaDB) at once; a black hole does not', () => {
  const conn: LockDesign = { ...LEASE, leased: false, sessionEndsWithConnection: true };
  const cut = (mode: string) => new Story().op('c1', 'acquire', 0, 2)
    .fault('partition', 100, 1600, { target: 'client:c1', mode, params: { point: 'in-critical-section' } })
    .op('c2', 'acquire', 300, 402).op('c2', 'release', 500, 502).op('c1', 'release', 1700, 1702);
  assert.match(classifyRun(cut('disable').run(), conn)[0]!.key, /^inherent: double-holder · session-outlived · partition@holding$/);
  assert.deepEqual(natures(cut('blackhole'), conn), ['unknown']);
  assert.deepEqual(natures(cut('drop-replies'), conn), ['unknown']);
  // A session that outlives its connection until its timeout (ZooKeeper): the same cut, shorter than the session, explains nothing.
  assert.deepEqual(natures(cut('disable'), { ...conn, sessionEndsWithConnection: false, sessionMs: 4000 }), ['unknown']);
  // Declared by the topology: a PostgreSQL session is its connection; behind PgBouncer the lock is on the pooler's server connection.
  assert.equal(lockDesign(RECIPES.find((r) => r.name === 'pg-advisory-session')!, 800).sessionEndsWithConnection, true);
  assert.equal(lockDesign(RECIPES.find((r) => r.name === 'pg-advisory-pgbouncer')!, 800).sessionEndsWithConnection, undefined);
  assert.equal(lockDesign(RECIPES.find((r) => r.name === 'zk-ephemeral-sequential')!, 800).sessionEndsWithConnection, undefined);
});

test('a grant handed out already expired is a bug; a resource failure is a bug only where the lock fences', () => {
  const expired = new Story().op('c1', 'acquire', 0, 2, { lease: 800, valid: -5 }).op('c2', 'acquire', 10, 12, { lease: 800 }).run();
  const [first] = classifyRun(expired, LEASE);
  assert.equal(first!.key, 'bug: expired-grant · expired-grant · no fault@idle');
  assert.match(first!.words, /^a bug in this lock: it handed out \(or renewed\) a lock whose validity was already over$/);
  // A renewal by a client whose lease had run out, after another took the lock: it extended that client's lock.
  const renew = new Story().op('c1', 'acquire', 0, 2, { lease: 800 }).op('c2', 'acquire', 900, 902, { lease: 800 }).op('c1', 'renew', 1000, 1002, { lease: 800 }).run();
  const renewed = classifyRun(renew, LEASE);
  assert.ok(renew.check.anomalies.some((a) => a.type === 'stale-renew'), JSON.stringify(renew.check.anomalies.map((a) => a.type)));
  assert.equal(renewed.find((c) => c.key.includes('stale-renew'))?.nature, 'bug');
  assert.match(renewed.find((c) => c.key.includes('stale-renew'))!.words, /^a bug in this lock: its renewal extended another client's lock$/);
  const stale = { type: 'stale-write' as const, key: 'k0', processes: [1], lines: [], message: 'x' };
  const res = { events: [], check: { anomalies: [] }, resource: { anomalies: [stale] } };
  assert.deepEqual(classifyRun(res, { ...LEASE, fencing: true }).map((c) => c.nature), ['bug']);
  assert.deepEqual(classifyRun(res, LEASE).map((c) => c.nature), ['unknown']);
  // Its writer paused (no lock anomaly, no fencing): the write was held up past its hold, inherent.
  const paused = new Story().op('c1', 'acquire', 0, 2, { lease: 800 }).fault('client-pause', 100, 1000, { client: 'c1' })
    .op('c2', 'acquire', 900, 902, { lease: 800 }).run();
  const [d] = classifyRun({ ...paused, check: { anomalies: [] }, resource: { anomalies: [stale] } }, LEASE);
  assert.equal(d!.key, 'inherent: stale-write · delayed-write · client-pause@holding');
  assert.match(d!.words, /^inherent to an unfenced lock: a write held up \(its writer was paused\) reached the resource after its hold had ended/);
  // The count of updates lost (no writer of its own) beside that stale write is its doing, not a class of its own.
  const lost = { type: 'lost-update' as const, key: 'k0', processes: [], lines: [], message: '2 updates lost' };
  assert.deepEqual(classifyRun({ ...paused, check: { anomalies: [] }, resource: { anomalies: [stale, lost] } }, LEASE).map((c) => c.key), ['inherent: stale-write · delayed-write · client-pause@holding']);
  // The paused client's late write landed before the next holder's (which read before it): the checker names the next
  // holder as the writer and the paused one as overwritten; the pause is still the cause, and the lost update its doing.
  const overwritten = { ...stale, processes: [2, 1] };
  assert.deepEqual(classifyRun({ ...paused, check: { anomalies: [] }, resource: { anomalies: [overwritten, lost] } }, LEASE).map((c) => c.key), ['inherent: stale-write · delayed-write · client-pause@holding']);
  // Neither client silenced: no rule.
  const calm = new Story().op('c1', 'acquire', 0, 2, { lease: 800 }).op('c2', 'acquire', 900, 902, { lease: 800 }).run();
  assert.deepEqual(classifyRun({ ...calm, check: { anomalies: [] }, resource: { anomalies: [overwritten] } }, LEASE).map((c) => c.nature), ['unknown']);
  // Alone, it stays unclassified, said so.
  assert.deepEqual(classifyRun({ ...paused, check: { anomalies: [] }, resource: { anomalies: [lost] } }, LEASE).map((c) => c.nature), ['unknown']);
  // The same with a lock anomaly beside it is the lock anomaly's class, not this one.
  assert.ok(!classifyRun({ ...paused, resource: { anomalies: [stale] } }, LEASE).some((c) => c.key.includes('delayed-write')));
});

test('the design is read from what the recipe and its topology declare', () => {
  const by = (name: string) => RECIPES.find((r) => r.name === name)!;
  const del = lockDesign(by('redis-set-px-del'), 800);
  assert.equal(del.leased, true); assert.equal(del.fencing, false); assert.equal(del.restartForgets, true); assert.equal(del.driftMs, 0);
  assert.equal(lockDesign(by('redlock'), 800).driftMs, 10);
  // The same recipe on servers started with AOF keeps its locks over a restart as started.
  const aofDesign = lockDesign({ ...by('redis-set-px-lua'), topology: { kind: 'redis', persistence: 'aof-always' } }, 800);
  assert.equal(aofDesign.restartForgets, false); assert.equal(aofDesign.canForget, true);
  assert.equal(lockDesign(by('redis-set-px-lua'), 800).restartForgets, true);
  const sentinel = RECIPES.find((r) => r.topology.kind === 'redis-sentinel');
  if (sentinel) assert.equal(lockDesign(sentinel, 800).asyncFailover, true);
});

test('a correct release the model calls stale because a late grant took over is that late grant\'s class (inherent), not a bug', () => {
  // As a redis-set-px-lua run did: c1's SET went through, then c1 was paused past its lease before
  // the reply; c2 got the lock once the key expired; c1's grant came back late; c1's owner-checked
  // release found the lock not its own (lost); c2's release freed its own key, which the model,
  // counting c2's lease from its invoke, reads as stale.
  const s = new Story()
    .op('c1', 'acquire', 0, 1016, { lease: 800 })
    .fault('client-pause', 5, 1010, { client: 'c1' })
    .op('c2', 'acquire', 113, 821, { lease: 800 })
    .op('c1', 'release', 1219, 1222, { value: { lost: true } })
    .op('c2', 'release', 1235, 1237);
  const run = s.run();
  assert.ok(run.check.anomalies.some((a) => a.type === 'stale-release'), 'the model names the stale release');
  const classes = classifyRun(run, LEASE);
  assert.deepEqual(classes.map((c) => c.nature), ['inherent']);
  assert.match(classes[0]!.key, /stale-release · lease-outlived · client-pause@acquire/);
});

test('what a fault breaks is read from its kind\'s declaration (KindDef), not its name: a throwaway kind is classed by its fields', () => {
  // Two kinds defined here and never in the sources, registered by one push as a line in KINDS would be.
  const throwaway = (kind: string, fields: Partial<KindDef>): KindDef => ({
    schema: { kind, summary: 'a throwaway of this test', target: 'a node', targetRequired: false, params: {} }, needs: [], scope: 'server',
    create: () => ({ start: async () => {}, stop: async () => {} }), generate: () => fc.constant([]), describe: () => kind, band: () => kind, ...fields,
  });
  const wipe = throwaway('disk-wipe', { breaks: 'restart' });
  const nap = throwaway('server-nap', {});
  const ender = throwaway('lease-reaper', { endsSessions: true });
  const kinds = KINDS as KindDef[];
  kinds.push(wipe, nap, ender);
  try {
    const around = (kind: string) => new Story().op('c1', 'acquire', 0, 2, { lease: 800 }).fault(kind, 50, 100, { target: 'n1' })
      .op('c2', 'acquire', 200, 202, { lease: 800 });
    const [c] = classifyRun(around('disk-wipe').run(), { ...LEASE, restartForgets: true });
    assert.equal(c!.nature, 'inherent');
    assert.match(c!.key, /· restart-forgets · disk-wipe@server$/);
    // The same story under a kind that declares nothing: the lock let c2 in within c1's lease, a bug.
    assert.deepEqual(natures(around('server-nap'), { ...LEASE, restartForgets: true }), ['bug']);
    // A kind that declares it ends sessions: the session lock's holder lost it with its session.
    const session: LockDesign = { ...LEASE, leased: false, sessionMs: 2000 };
    const ended = new Story().op('c1', 'acquire', 0, 2).fault('lease-reaper', 100, 110, { client: 'c1' }).op('c2', 'acquire', 300, 302);
    assert.match(classifyRun(ended.run(), session)[0]!.key, /· session-outlived · lease-reaper@/);
  } finally {
    for (const k of [wipe, nap, ender]) kinds.splice(kinds.indexOf(k), 1);
  }
});

/** c1's acquire (0–740 ms) is paused from 5 ms on `point` for 730 ms; c2's acquire completes at `c2At` ms, both with an 800 ms lease. */
function pausedInAcquire(point: string, c2At: number): Story {
  return new Story()
    .op('c1', 'acquire', 0, 740, { lease: 800 })
    .fault('client-pause', 5, 735, { client: 'c1', point, silenced: ['c1'] })
    .op('c2', 'acquire', 20, c2At, { lease: 800 })
    .op('c1', 'release', c2At + 3, c2At + 4, { value: { lost: true } })
    .op('c2', 'release', c2At + 200, c2At + 201);
}

test('a pause on a reply inside the acquire: the grant may have waited unread, so a lease from the pause on can have run out (inherent); a pause before anything was sent cannot', () => {
  // Seen on NATS KV (nats-kv-create-delete-rev): the grant's reply held 730 ms, c2 in 825 ms after the pause began.
  const late = classifyRun(pausedInAcquire('reply:acquire:3', 830).run(), LEASE);
  assert.deepEqual(late.map((c) => c.nature), ['inherent'], late.map((c) => c.words).join('\n'));
  assert.match(late[0]!.key, /lease-outlived/);
  // Before a lease from the pause's start ran out, the server let c2 in early: the lock's bug.
  assert.deepEqual(natures(pausedInAcquire('reply:acquire:3', 780), LEASE), ['bug']);
  // Paused before its first request went out: the lease started after the pause, so this is the lock's bug.
  assert.deepEqual(natures(pausedInAcquire('send:acquire:1', 830), LEASE), ['bug']);
});
