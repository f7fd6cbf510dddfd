// What `lockpick run --replay DIR` reads from test.json is checked as `lockpick run` checks the
// same options given as flags (src/options.ts checkStoredRun, the plan by validate-plan.ts), before
// a run dir or a server: a hand-edited or careless test.json is exit 2 naming the field and the
// fix, never a hang, a stack trace, exit 3 from a choice the recipe does not take, or a SAFE
// verdict for a fault that cannot act on the lock. A recipe file or module changed since the run is
// said with both sha256 (issue 42). No servers: every refusal comes before the session.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../../src/errors.ts';
import { checkStoredRun, recipeFor } from '../../src/options.ts';
import { readReplay, replay, replayLock } from '../../src/runner/replay.ts';
import { moduleHash } from '../../src/runner/lock-spec.ts';
import { validatePlan, type RunPlan } from '../../src/workload/plan.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/lockpick.mjs');
const attempt = { key: 'k0', delayMs: 0, waitMs: 800, holdMs: 100, renew: false };
const PLAN = {
  ttlMs: 800,
  clients: [{ attempts: [attempt] }, { attempts: [{ ...attempt, delayMs: 300 }] }],
  faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 900, target: 'c1', params: { point: 'before-release' } }],
};
/** test.json as `lockpick run --lock redis-set-px-del --faults client-pause` stores it, with `over` on top. */
const testJson = (over: Record<string, unknown> = {}) => ({
  lock: 'redis-set-px-del', lock_spec: { name: 'redis-set-px-del' }, model: 'mutex', faults: ['client-pause'], property: 'both', liveness_ms: null,
  clients: 2, ttl_ms: 800, lock_options: {}, env: { kind: 'local' }, key_prefix: null, plan: PLAN, counterexample: { seed: 1, path: '0', run: 1 }, ...over,
});
const withFault = (f: Record<string, unknown>) => testJson({ plan: { ...PLAN, faults: [f] } });

const tmp = tempDir('lockpick-replay-stored-');
let n = 0;
function runDir(t: Record<string, unknown>): string {
  const dir = join(tmp, `run-${++n}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'test.json'), JSON.stringify(t, null, 2));
  return dir;
}

/** The replay of `t` (with `lock`: --lock) refused with exit 2 matching `words`, before a run dir is made. */
async function refused(t: Record<string, unknown>, words: RegExp, lock?: string): Promise<void> {
  const dir = runDir(t);
  const store = join(tmp, `store-${n}`);
  await assert.rejects(
    replay({ dir, runs: 1, storeRoot: store, resolve: recipeFor, log: () => {}, ...(lock ? { lock: { name: lock } } : {}) }),
    (e: unknown) => {
      assert.ok(e instanceof UsageError, String((e as Error)?.stack ?? e));
      assert.equal(e.exitCode, 2);
      assert.match(e.message, words);
      assert.ok(e.message.startsWith(`${join(dir, 'test.json')}: `), `names the file: ${e.message}`);
      assert.match(e.message, /\n {2}fix: /);
      return true;
    },
  );
  assert.ok(!existsSync(store), 'nothing stored: refused before the run dir');
}

test('a stored restart delay of days is refused naming the field and its bound (it hung the replay until killed)', async () => {
  await refused(withFault({ kind: 'server-term', at_ms: 100, duration_ms: 100, target: 'n1', params: { restart_delay_ms: 259_200_000 } }),
    /: plan\.faults\[0\]\.params\.restart_delay_ms: 259200000 is above the bound 3600000 \(1 h\).*\n {2}fix: edit the file .*or run afresh/);
});

test('lock_options the recipe does not declare, or a value it does not take, are refused as --lock-opt is (they ran without a word, or ended in exit 3)', async () => {
  await refused(testJson({ lock_options: { bogus: 1 } }), /: lock_options\.bogus: lock redis-set-px-del has no option 'bogus'; its options: retryMs, validity/);
  // choiceOption threw in every client: exit 3 with no verdict. Now the recipe's optionValues refuse it up front.
  await refused(testJson({ lock_options: { validity: 'sometimes' } }), /: lock_options\.validity=sometimes: lock redis-set-px-del takes one of none, reported here/);
  await refused(testJson({ lock_options: { retryMs: -5 } }), /: lock_options\.retryMs=-5: lock redis-set-px-del takes a number from 0 to 3600000/);
  await refused(testJson({ lock_options: ['validity=reported'] }), /: lock_options must be an object/);
  // With --lock, the stored options are checked against the lock given.
  await refused(testJson({ lock_options: { validity: 'reported' } }), /lock_options\.validity: lock redlock has no option 'validity'.*\n {2}fix: give --lock a lock it fits/s, 'redlock');
});

test('a stored clock fault replayed with --lock on a topology whose holds expire by another clock is refused (it came back SAFE)', async () => {
  const bump = withFault({ kind: 'clock-bump', at_ms: 100, target: 'n1', params: { delta_ms: 5000 } });
  await refused(bump, /: plan\.faults\[0\]: fault 'clock-bump' moves the servers' wall clock, and memcached's holds expire by its own monotonic clock.*\n {2}fix: give --lock a lock it fits/s, 'memcached-add-cas');
  // A server whose clock the shim cannot reach (a Go server: TopologyDef.expiryClock 'unshimmable').
  await refused(bump, /: plan\.faults\[0\]: fault 'clock-bump' moves the servers' wall clock, and etcd's holds expire by its own clock, which it reads without libc.*so the clock shim cannot move it/s, 'etcd-lease-lock');
  // A kind the topology lacks, and a point the lock given has not.
  await refused(withFault({ kind: 'failover', at_ms: 100 }), /: plan\.faults\[0\]: fault 'failover' needs a redis-sentinel topology; this lock runs on redis/);
  await refused(withFault({ kind: 'client-pause', at_ms: 0, duration_ms: 900, target: 'c1', params: { point: 'after-compare' } }), /: plan\.faults\[0\]\.params\.point: this lock has no point 'after-compare'/);
});

test('property, liveness_ms and key_prefix are checked as --property, --liveness-ms and --key-prefix; no lock_spec is exit 2, not 4', async () => {
  const { lock_spec: _, ...noSpec } = testJson();
  await refused(noSpec, /: "lock_spec" is missing/);
  await refused(testJson({ lock_spec: { name: 'meteor' } }), /: lock_spec: unknown lock "meteor"/);
  await refused(testJson({ property: 'safety' }), /: property must be one of lock, resource, both, liveness, all; got "safety"/);
  await refused(testJson({ liveness_ms: 1e12 }), /: liveness_ms must be a whole number from 1 to 3600000, got 1000000000000/);
  await refused(testJson({ key_prefix: 'a b' }), /: key_prefix 'a b': use 1 to 40 letters/);
});

test('a stored run that fits passes with its options typed; every scenario of the catalogue fits', async () => {
  const t = testJson({ lock_options: { validity: 'reported', retryMs: 20 }, property: 'lock', liveness_ms: 1600, key_prefix: 'ci:' });
  const plan = validatePlan(t.plan, 'test.json');
  const got = await checkStoredRun(t, 'test.json', plan, await recipeFor({ name: 'redis-set-px-del' }), false);
  assert.deepEqual(got, { lockOptions: { validity: 'reported', retryMs: 20 }, property: 'lock', livenessMs: 1600, keyPrefix: 'ci:' });
  for (const name of readdirSync(join(root, 'scenarios'))) {
    const file = join(root, 'scenarios', name, 'test.json');
    if (!existsSync(file)) continue;
    const s = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const { spec } = replayLock(s, file, { dir: name } as never);
    await checkStoredRun(s, file, validatePlan(s.plan, file) as RunPlan, await recipeFor(spec, s.lock_options as Record<string, unknown>), false);
  }
});

test('a recipe file changed since the run is said with the file and both sha256; unchanged, nothing is said', () => {
  const project = tempDir('lockpick-replay-recipe-');
  const file = join(project, 'x.json');
  writeFileSync(file, JSON.stringify({ exec: '/usr/bin/python3 client.py', topology: { kind: 'redis', masters: 1 }, model: 'mutex' }));
  const was = moduleHash(file)!;
  const stored: Record<string, unknown> = testJson({ lock: 'x.json', lock_spec: { path: file }, lock_sha256: was });
  assert.equal(replayLock(stored, 'test.json', { dir: 'd' } as never).note, undefined);
  writeFileSync(file, JSON.stringify({ exec: '/usr/bin/python3 client.py', topology: { kind: 'redis', masters: 1 }, model: 'mutex', lease: false }));
  const now = moduleHash(file)!;
  const r = replayLock(stored, 'test.json', { dir: 'd' } as never);
  assert.equal(r.note, `warning: the recipe file ${file} changed since the run: sha256 ${was} at the run, ${now} now; the replay runs it as it is now, so no violation is this lock's verdict (SAFE), not "not reproduced"`);
  assert.equal(r.same, false);
  // A test.json with no hash of it: said that it cannot be told.
  const { lock_sha256: _, ...unhashed } = stored;
  assert.match(replayLock(unhashed, 'd/test.json', { dir: 'd' } as never).note ?? '', /d\/test\.json stores no sha256 of the recipe file .*x\.json \("lock_sha256"\): whether it changed since the run cannot be told/);
  // --lock naming another file: no hash is compared (the stored one is the run's file's); said as the other lock on the stored plan.
  const other = join(project, 'y.json');
  writeFileSync(other, JSON.stringify({ exec: '/usr/bin/python3 other.py', topology: { kind: 'redis', masters: 1 }, model: 'mutex' }));
  const o = replayLock(stored, 'test.json', { dir: 'd', lock: { path: other } } as never);
  assert.equal(o.same, false);
  assert.match(o.note ?? '', /^replaying the plan of .*x\.json with .*y\.json instead \(--lock\): a violation is this lock's, no violation is its verdict on that plan$/);
  // --lock naming the run's own file: compared as without it.
  assert.match(replayLock(stored, 'test.json', { dir: 'd', lock: { path: file } } as never).note ?? '', /changed since the run/);
});

test('through the command line: exit 2 with the message and no stack trace', () => {
  const dir = runDir(testJson({ lock_options: { validity: 'sometimes' } }));
  const r = spawnSync(process.execPath, [bin, 'run', '--replay', dir, '--store', join(tmp, 'cli-store')], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^lockpick run: .*test\.json: lock_options\.validity=sometimes: lock redis-set-px-del takes one of none, reported here\n {2}fix: /);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

/** Every path to a value inside x (objects and arrays walked). */
function paths(x: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (x === null || typeof x !== 'object') return [at];
  const kids = Array.isArray(x) ? x.map((v, i) => [i, v] as const) : Object.entries(x);
  return [at, ...kids.flatMap(([k, v]) => paths(v, [...at, k]))];
}

test('fuzzed: any one value of a stored run replaced (a careless edit) is replayable or exit 2 naming the file, never another error', { timeout: 120_000 }, async () => {
  const hostile = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(-5000, 2e9, 259_200_000, 'forever', 'c99', 'meteor', 'sometimes', 'clock-bump', 1e308, -0.5, null));
  const t0 = withFault({ kind: 'server-term', at_ms: 100, duration_ms: 100, target: 'n1', params: { restart_delay_ms: 1000, grace_ms: 100 } });
  (t0 as Record<string, unknown>).lock_options = { validity: 'reported', retryMs: 20 };
  const all = paths(t0).filter((p) => p.length > 0);
  await fc.assert(fc.asyncProperty(fc.nat(), hostile, async (i, v) => {
    const t = JSON.parse(JSON.stringify(t0)) as Record<string | number, unknown>;
    const path = all[i % all.length]!;
    let o = t;
    for (const k of path.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
    o[path.at(-1)!] = v;
    const dir = runDir(t);
    try {
      await readReplay({ dir, runs: 1, storeRoot: join(tmp, 'never'), resolve: recipeFor, log: () => {} });   // all replay does before its run dir and session
    } catch (e) {
      assert.ok(e instanceof UsageError, `${JSON.stringify(path)} = ${JSON.stringify(v)}: ${String((e as Error)?.stack ?? e)}`);
      assert.ok(e.message.startsWith(`${join(dir, 'test.json')}: `) || e.message.startsWith(`--replay ${dir}`), e.message);
    }
  }), { numRuns: 300 });
});

test("a run's first counterexample/ (no test.json of its own) replays the run's plan; any other dir without one is refused naming it", async () => {
  const { readTestJson } = await import('../../src/runner/store.ts');
  const dir = runDir(testJson());
  mkdirSync(join(dir, 'counterexample'));
  assert.deepEqual(readTestJson(join(dir, 'counterexample')).plan, PLAN);
  mkdirSync(join(dir, 'elsewhere'));
  assert.throws(() => readTestJson(join(dir, 'elsewhere')), (e: Error) => e instanceof UsageError && /cannot read .*elsewhere\/test\.json/.test(e.message));
});
