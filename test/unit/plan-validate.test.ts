// The one plan validator (src/workload/validate-plan.ts), as `run --replay` and test.json
// loading use it: a hand-edited plan is bad input (UsageError, exit 2) naming the field's JSON
// path, never a run that fails late (exit 3) or runs for ever (issue 21).
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../src/errors.ts';
import { MAX_PLAN_MS, validatePlan } from '../../src/workload/plan.ts';
import { readTestJson } from '../../src/runner/store.ts';

const attempt = { key: 'k0', delayMs: 0, waitMs: 500, holdMs: 100, renew: false };
const plan = (over: Record<string, unknown> = {}) => ({
  ttlMs: 800,
  clients: [{ attempts: [attempt, attempt] }, { attempts: [attempt] }],
  faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 1500, target: 'c1', params: { point: 'in-critical-section' } }],
  ...over,
});
const fault = (f: Record<string, unknown>) => plan({ faults: [f] });

function refused(p: unknown, path: string, words: RegExp): void {
  assert.throws(() => validatePlan(p, 'd/test.json'), (e: unknown) => {
    assert.ok(e instanceof UsageError, String(e));
    assert.ok(e.message.startsWith(`d/test.json: ${path}: `), e.message);
    assert.match(e.message, words);
    assert.match(e.message, /\n {2}fix: /);
    return true;
  });
}

test('a valid plan passes, anchored client faults with params.point included', () => {
  assert.doesNotThrow(() => validatePlan(plan(), 'p'));
  assert.doesNotThrow(() => validatePlan(fault({ kind: 'partition', at_ms: 0, duration_ms: 900, target: 'client:c2', params: { point: 'send:release:1' } }), 'p'));
});

test('attempt times: non-numbers, negatives, non-finite and absurd upper bounds name their path', () => {
  const withAttempt = (a: Record<string, unknown>) => plan({ clients: [{ attempts: [attempt, { ...attempt, ...a }] }] });
  refused(withAttempt({ holdMs: -5000 }), 'plan.clients[0].attempts[1].holdMs', /≥ 0 ms; got -5000/);
  refused(withAttempt({ delayMs: -100 }), 'plan.clients[0].attempts[1].delayMs', /≥ 0/);
  refused(withAttempt({ holdMs: 2e9 }), 'plan.clients[0].attempts[1].holdMs', new RegExp(`at most ${MAX_PLAN_MS} ms`));
  refused(withAttempt({ waitMs: 'forever' }), 'plan.clients[0].attempts[1].waitMs', /must be a number of milliseconds; got "forever"/);
  refused(withAttempt({ key: 7 }), 'plan.clients[0].attempts[1].key', /string/);
  refused(plan({ ttlMs: 0 }), 'plan.ttlMs', /≥ 1/);
  refused(plan({ clients: Array.from({ length: 65 }, () => ({ attempts: [] })) }), 'plan.clients', /at most 64/);
});

test('faults: unknown kind, a duration that is no number, clients beyond the plan, bad times', () => {
  refused(fault({ kind: 'meteor', at_ms: 0 }), 'plan.faults[0]', /kind must be one of .*partition/);
  refused(fault({ kind: 'pause', at_ms: 0, duration_ms: 'forever', target: 'n1' }), 'plan.faults[0]', /duration_ms must be a number/);
  refused(fault({ kind: 'client-pause', at_ms: 0, duration_ms: 100, target: 'c99' }), 'plan.faults[0].target', /client 'c99', but the plan has 2 client\(s\): c1..c2/);
  refused(fault({ kind: 'client-kill', at_ms: 0, target: ['c1', 'client:c3'] }), 'plan.faults[0].target[1]', /client 'c3'/);
  refused(fault({ kind: 'partition', at_ms: 0, duration_ms: 100, target: 'client:c99' }), 'plan.faults[0].target', /client 'c99'/);
  refused(fault({ kind: 'pause', at_ms: 0, duration_ms: 100, target: 'n1', anchor: { client: 'c5', point: 'in-critical-section' } }), 'plan.faults[0].anchor.client', /client 'c5'/);
  refused(fault({ kind: 'client-pause', at_ms: 0, duration_ms: 100, target: 'bob' }), 'plan.faults[0].target', /client 'bob'/);
  refused(fault({ kind: 'pause', at_ms: 9e9, duration_ms: 100, target: 'n1' }), 'plan.faults[0].at_ms', /at most/);
  refused(fault({ kind: 'pause', at_ms: 0, duration_ms: 2e9, target: 'n1' }), 'plan.faults[0].duration_ms', /at most/);
  refused(fault({ kind: 'client-pause', at_ms: 0, duration_ms: 100, target: 'c1', params: { point: 'x', extra: 1 } }), 'plan.faults[0]', /unknown param 'extra'/);
});

test('fault params a run waits for are bounded as the run options are: a restart delay of days is refused naming the field, not waited for', async () => {
  const { MAX_MS } = await import('../../src/options.ts');
  assert.equal(MAX_PLAN_MS, MAX_MS, '--restart-delay and a stored restart_delay_ms share one bound');
  refused(fault({ kind: 'server-term', at_ms: 100, duration_ms: 100, target: 'n1', params: { restart_delay_ms: 259_200_000 } }), 'plan.faults[0].params.restart_delay_ms', /^d\/test\.json: plan\.faults\[0\]\.params\.restart_delay_ms: 259200000 is above the bound 3600000 \(1 h\)/);
  refused(fault({ kind: 'kill', at_ms: 0, duration_ms: 100, target: 'n1', params: { restart_delay_ms: 3_600_001 } }), 'plan.faults[0].params.restart_delay_ms', /above the bound/);
  refused(fault({ kind: 'server-term', at_ms: 0, duration_ms: 100, target: 'n1', params: { grace_ms: 1e12 } }), 'plan.faults[0].params.grace_ms', /above the bound/);
  refused(fault({ kind: 'latency', at_ms: 0, duration_ms: 100, target: 'n1', params: { latency_ms: 86_400_000 } }), 'plan.faults[0].params.latency_ms', /above the bound/);
  assert.doesNotThrow(() => validatePlan(fault({ kind: 'server-term', at_ms: 0, duration_ms: 100, target: 'n1', params: { restart_delay_ms: MAX_PLAN_MS } }), 'p'), 'the bound itself is taken');
  // Every kind's time params have a bound, but a clock's jump (delta_ms): a jump is not waited for.
  const { KINDS } = await import('../../nemesis/kinds.ts');
  for (const k of KINDS) {
    for (const [name, info] of Object.entries(k.schema.params)) {
      if (info.type === 'number' && name.endsWith('_ms') && name !== 'delta_ms') assert.equal(info.max, MAX_PLAN_MS, `${k.schema.kind}: params.${name} has the bound`);
    }
  }
});

test('readTestJson (run --replay) refuses such a plan as bad input naming test.json and the path', () => {
  const dir = tempDir('lockpick-plan-');
  try {
    writeFileSync(join(dir, 'test.json'), JSON.stringify({ lock_spec: { name: 'redis-set-px-lua' }, plan: fault({ kind: 'client-kill', at_ms: 0, target: 'c99' }) }));
    assert.throws(() => readTestJson(dir), (e: unknown) => e instanceof UsageError && e.message.includes(`${join(dir, 'test.json')}: plan.faults[0].target: names client 'c99'`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--clients above 64 is refused before anything starts (exit 2, saying why); the library API alike', async () => {
  const { execFileSync } = await import('node:child_process');
  const root = join(import.meta.dirname, '../..');
  let code = 0, stderr = '';
  try {
    execFileSync(process.execPath, [join(root, 'bin/lockpick.mjs'), 'run', '--lock', 'redis-set-px-lua', '--clients', '1000', '--store', tmpdir()], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    code = (e as { status: number }).status;
    stderr = (e as { stderr: string }).stderr;
  }
  assert.equal(code, 2, stderr);
  assert.match(stderr, /--clients 1000: at most 64 clients \(each is a process/);
  const { runLockTest } = await import('../../src/api.ts');
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', clients: 65 }), (e: unknown) => e instanceof UsageError && /clients 65: at most 64/.test(e.message));
});
