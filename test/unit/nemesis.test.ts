// Fault specs, schedule planning, and runSchedule's timing and healing,
// with real client processes stopped by SIGSTOP (no servers needed).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Environment } from '../../src/env/types.ts';
import { processClients } from '../../nemesis/process-clients.ts';
import { activeFaults, checkFaultSpec, checkSchedule, FAULT_KINDS, FaultSpecError, planSchedule, runSchedule, type ClientControl, type NemesisContext } from '../../nemesis/index.ts';

const bad = (spec: unknown, pattern: RegExp) => assert.throws(() => checkFaultSpec(spec), (e: unknown) => e instanceof FaultSpecError && pattern.test(e.message));

test('fault specs: a clear error naming the field and the fix', () => {
  bad(null, /must be an object like/);
  bad({ kind: 'earthquake', at_ms: 0 }, /kind must be one of partition, latency, .*lockpick list/);
  bad({ kind: 'pause', at_ms: -1, target: 'n1' }, /at_ms must be a number of milliseconds >= 0/);
  bad({ kind: 'pause', at_ms: '1s', target: 'n1' }, /at_ms .* got "1s"/);
  bad({ kind: 'pause', at_ms: 0, duration_ms: -5, target: 'n1' }, /duration_ms must be a number/);
  bad({ kind: 'pause', at_ms: 0 }, /target is required: node ids/);
  bad({ kind: 'pause', at_ms: 0, target: [] }, /target must be a non-empty string or array/);
  bad({ kind: 'pause', at_ms: 0, target: 'n1', when: 3 }, /unknown field 'when'.*"params"/);
  bad({ kind: 'clock-reset', at_ms: 0, duration_ms: 10 }, /one-shot action: remove duration_ms/);
  bad({ kind: 'failover', at_ms: 0, target: 'n1' }, /takes no target: remove it/);
  bad({ kind: 'latency', at_ms: 0, target: 'n1' }, /params.latency_ms is required/);
  bad({ kind: 'latency', at_ms: 0, target: 'n1', params: { latency_ms: '50' } }, /params.latency_ms must be a number/);
  bad({ kind: 'latency', at_ms: 0, target: 'n1', params: { latency_ms: 5, stream: 'sideways' } }, /params.stream must be one of "both", "upstream", "downstream"/);
  bad({ kind: 'partition', at_ms: 0, target: 'n1', params: { mood: 'x' } }, /unknown param 'mood'; 'partition' takes mode/);
  bad({ kind: 'kill', at_ms: 0, target: 'n1', params: { restart_delay_ms: -1 } }, />= 0/);
  assert.throws(() => checkSchedule({ kind: 'pause' }), /must be a JSON array/);
  assert.throws(() => checkSchedule([{ kind: 'pause', at_ms: 0, target: 'n1' }, { kind: 'pause', at_ms: 0 }]), /^FaultSpecError: schedule\[1\] \(kind "pause"\): target is required/);
  const ok = { kind: 'partition', at_ms: 100, duration_ms: 500, target: ['client:c1', 'n2'], params: { mode: 'blackhole' } };
  assert.deepEqual(checkFaultSpec(ok), ok);
});

test('FAULT_KINDS lists every kind with a summary and its params', () => {
  const kinds = FAULT_KINDS.map((k) => k.kind);
  for (const k of ['partition', 'latency', 'pause', 'kill', 'clock-bump', 'clock-strobe', 'clock-reset', 'failover', 'client-pause', 'client-clock']) {
    assert.ok(kinds.includes(k), `missing kind ${k}`);
  }
  for (const k of FAULT_KINDS) assert.ok(k.summary.length > 10, `${k.kind} has a summary`);
  assert.match(FAULT_KINDS.find((k) => k.kind === 'kill')!.params.restart_delay_ms!, /delayed restart/);
});

test('planSchedule: time order, stops before starts at the same instant, open-ended faults have no stop', () => {
  const plan = planSchedule([
    { kind: 'pause', at_ms: 500, duration_ms: 100, target: 'n2' },
    { kind: 'pause', at_ms: 0, duration_ms: 500, target: 'n1' },
    { kind: 'clock-bump', at_ms: 200, target: 'n3', params: { delta_ms: 30_000 } },
  ]);
  assert.deepEqual(plan, [
    { at_ms: 0, action: 'start', index: 1 },
    { at_ms: 200, action: 'start', index: 2 },
    { at_ms: 500, action: 'stop', index: 1 },
    { at_ms: 500, action: 'start', index: 0 },
    { at_ms: 600, action: 'stop', index: 0 },
  ]);
});

test('planSchedule: a fault of duration 0 starts before it stops (a kill restarted at once), still after another fault\'s stop at that instant', () => {
  assert.deepEqual(planSchedule([
    { kind: 'pause', at_ms: 0, duration_ms: 53, target: 'n2' },
    { kind: 'kill', at_ms: 53, duration_ms: 0, target: 'n1' },
  ]), [
    { at_ms: 0, action: 'start', index: 0 },
    { at_ms: 53, action: 'stop', index: 0 },
    { at_ms: 53, action: 'start', index: 1 },
    { at_ms: 53, action: 'stop', index: 1 },
  ]);
});

// ---- runSchedule against real client processes --------------------------------

const children: ChildProcess[] = [];
after(() => { for (const c of children) c.kill('SIGKILL'); });

/** Real worker processes behind a ClientControl, as the runner's are. */
function realClients(n: number): { control: ClientControl; pids: Map<string, number>; offsets: Map<string, number> } {
  const pids = new Map<string, number>();
  const offsets = new Map<string, number>();
  for (let i = 1; i <= n; i++) {
    const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(c);
    pids.set(`c${i}`, c.pid!);
  }
  return { pids, offsets, control: processClients(pids, async (id, ms) => { offsets.set(id, ms); }) };
}

/** 'T' when stopped, 'S'/'R' when running (from /proc). */
function state(pid: number): string {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0]!;
}

const noServers: Environment = {
  topology: 'redis', nodes: [], links: [], proxyUrl: '',
  node: (id) => { throw new Error(`no node ${id}`); },
  clientEndpoints: async () => [],
  down: async () => {},
};

function context(clients: ClientControl) {
  const events: { f: string; value: unknown; t: number }[] = [];
  const t0 = Date.now();
  const ctx: NemesisContext = { env: noServers, clients, record: (f, value) => events.push({ f, value, t: Date.now() - t0 }) };
  return { ctx, events };
}

const at = (ms: number, t0: number) => new Promise((r) => setTimeout(r, t0 + ms - Date.now()));
/** Polls until pred holds or the clock passes `deadline` (Date.now() ms). */
const until = async (pred: () => boolean, deadline: number): Promise<void> => {
  while (!pred() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
};

test('runSchedule starts and stops faults on time and heals open-ended ones at runMs', async () => {
  const { control, pids, offsets } = realClients(2);
  const { ctx, events } = context(control);
  const t0 = Date.now();
  const run = runSchedule([
    { kind: 'client-pause', at_ms: 100, duration_ms: 300, target: 'c1' },
    { kind: 'client-pause', at_ms: 200, target: 'client:c2' },
    { kind: 'client-clock', at_ms: 0, duration_ms: 250, target: 'all', params: { delta_ms: -5000 } },
  ], ctx, undefined, { runMs: 700 });
  await at(50, t0);
  assert.deepEqual([state(pids.get('c1')!), state(pids.get('c2')!)].map((s) => s === 'T'), [false, false]);
  assert.equal(offsets.get('c1'), -5000);
  // Both paused at once between c2's start (200 ms) and c1's stop (400 ms): awaited, not read at one
  // instant (a loaded machine signals a few tens of ms late).
  const stopped = () => [state(pids.get('c1')!), state(pids.get('c2')!)].map((s) => s === 'T');
  await until(() => stopped().every(Boolean) && offsets.get('c2') === 0, t0 + 395);
  assert.deepEqual(stopped(), [true, true], 'c1 (100-400 ms) and c2 (from 200 ms) paused together');
  assert.equal(offsets.get('c2'), 0, 'client-clock stopped at 250 ms, before c1 resumes at 400 ms');
  await at(450, t0);
  await until(() => !stopped()[0], t0 + 650);
  assert.deepEqual(stopped(), [false, true], 'c1 resumed at 400 ms, c2 still paused (open-ended)');
  await run;
  const elapsed = Date.now() - t0;
  assert.ok(elapsed >= 700 && elapsed < 1000, `open-ended fault healed at runMs=700: ${elapsed} ms`);
  assert.equal(state(pids.get('c2')!) === 'T', false);
  const fs = events.map((e) => e.f);
  assert.deepEqual(fs.filter((f) => f.startsWith('client-pause')), ['client-pause-start', 'client-pause-start', 'client-pause-stop', 'client-pause-stop']);
  const start1 = events.find((e) => e.f === 'client-pause-start')!;
  assert.ok(start1.t >= 95 && start1.t < 200, `first pause recorded at ${start1.t} ms`);
});

test('runSchedule heals every fault when a start throws, and when aborted', async () => {
  const { control, pids } = realClients(2);
  const { ctx, events } = context(control);
  // c2's process is gone: pausing it fails like a vanished worker would.
  const c2 = children[children.length - 1]!;
  c2.kill('SIGKILL');
  await new Promise((r) => c2.once('exit', r));
  await assert.rejects(runSchedule([
    { kind: 'client-pause', at_ms: 0, target: 'c1' },
    { kind: 'client-pause', at_ms: 50, duration_ms: 100, target: 'c2' },
  ], ctx), /ESRCH/);
  assert.equal(state(pids.get('c1')!) === 'T', false, 'c1 resumed although c2 failed');
  assert.ok(events.some((e) => e.f === 'client-pause-start-failed'));

  const { control: ctl2, pids: pids2 } = realClients(1);
  const { ctx: ctx2 } = context(ctl2);
  const ac = new AbortController();
  const t0 = Date.now();
  const run = runSchedule([{ kind: 'client-pause', at_ms: 0, target: 'c1' }, { kind: 'client-pause', at_ms: 5000, target: 'c1' }], ctx2, ac.signal);
  await at(100, t0);
  assert.equal(state(pids2.get('c1')!), 'T');
  ac.abort();
  await run;
  assert.ok(Date.now() - t0 < 1000, 'abort ends the run at once');
  assert.equal(state(pids2.get('c1')!) === 'T', false, 'healed on abort');
  assert.deepEqual(activeFaults(ctx2), [], 'a fault healed by healAll is no longer counted as active');
  assert.deepEqual(activeFaults(ctx), []);
});
