// Running a fault schedule (plain JSON data) against a context: each fault
// starts at at_ms and stops at at_ms + duration_ms (no duration: it lasts to
// the end of the run). Whatever happens (a fault that throws, an abort, an
// exception), every fault is healed before runSchedule settles.
import { sleep } from './fault.ts';
import { activeFaults, checkSchedule, createFault } from './kinds.ts';
import { healLinks } from './links.ts';
import type { Fault, NemesisContext } from './types.ts';

export interface ScheduleStep { at_ms: number; action: 'start' | 'stop'; index: number }

/**
 * The order of actions: by time, stops before starts at the same instant (so
 * back-to-back faults on one target do not overlap), then by spec order; a
 * fault's own stop never before its own start (duration 0: a kill restarted at
 * once; stopped first, its start threw and the schedule ended there).
 * Faults without duration_ms have no stop step: they end with the run.
 */
export function planSchedule(schedule: unknown): ScheduleStep[] {
  const specs = checkSchedule(schedule);
  const steps: ScheduleStep[] = [];
  specs.forEach((s, index) => {
    steps.push({ at_ms: s.at_ms, action: 'start', index });
    if (s.duration_ms !== undefined) steps.push({ at_ms: s.at_ms + s.duration_ms, action: 'stop', index });
  });
  const order = (a: ScheduleStep, b: ScheduleStep) => (a.action === b.action ? 0 : (a.action === 'stop') !== (a.index === b.index) ? -1 : 1);
  return steps.sort((a, b) => a.at_ms - b.at_ms || order(a, b) || a.index - b.index);
}

export interface RunScheduleOptions {
  /** Length of the run: faults without duration_ms are healed then. Without it they last until `signal` aborts (or, with no signal, until the last step). */
  runMs?: number;
}

/** Resolves after `ms`, or early (without error) when `signal` aborts. */
function wait(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { clearTimeout(t); signal?.removeEventListener('abort', done); resolve(); };
    const t = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs `schedule`; an abort of `signal` ends the run early (runSchedule then
 * resolves normally after healing). Rejects with the first error of a fault
 * start/stop, after healing everything.
 */
export async function runSchedule(schedule: unknown, ctx: NemesisContext, signal?: AbortSignal, opts: RunScheduleOptions = {}): Promise<void> {
  const specs = checkSchedule(schedule);
  const steps = planSchedule(specs);
  const t0 = performance.now();   // monotonic: the host clock may be stepped
  const faults: Fault[] = specs.map((s) => createFault(s, ctx));
  let failure: unknown;
  try {
    for (const step of steps) {
      await wait(t0 + step.at_ms - performance.now(), signal);
      if (signal?.aborted) break;
      const f = faults[step.index]!;
      if (step.action === 'start') await f.start(); else await f.stop();
    }
    const openEnded = specs.some((s) => s.duration_ms === undefined);
    if (!signal?.aborted && openEnded) {
      if (opts.runMs !== undefined) await wait(t0 + opts.runMs - performance.now(), signal);
      else if (signal) await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    }
  } catch (e) {
    failure = e;
  }
  try {
    await healAll(ctx);
  } catch (e) {
    failure ??= e;
  }
  if (failure !== undefined) throw failure;
}

/**
 * Heals everything: stops every active fault of `ctx` (newest first), then a
 * blanket pass so nothing is left even if a fault object was lost: every link
 * enabled and its nemesis toxics removed, every server resumed and its clock
 * true, every client resumed with a true clock. Throws the first error after
 * trying everything.
 */
export async function healAll(ctx: NemesisContext): Promise<void> {
  const errors: unknown[] = [];
  const attempt = async (f: () => Promise<unknown>) => { try { await f(); } catch (e) { errors.push(e); } };
  for (const f of activeFaults(ctx).reverse()) await attempt(() => f.stop());
  await attempt(() => healLinks(ctx.env));
  for (const n of ctx.env.nodes) {
    if (n.pid() !== undefined) await attempt(() => n.resume());
    if (n.clockOffsetMs() !== 0) await attempt(() => n.setClockOffsetMs(0));
  }
  for (const c of ctx.clients.ids()) {
    await attempt(() => ctx.clients.resume(c));
    await attempt(() => ctx.clients.setClockOffsetMs(c, 0));
  }
  if (errors.length > 0) {
    ctx.record('heal-failed', { errors: errors.map((e) => (e instanceof Error ? e.message : String(e))) });
    throw errors[0];
  }
}
