// What the nemesis actually did in one run, read back from the nemesis events it
// recorded (`<kind>-start`, `<kind>-start-failed`, `<kind>-stop`, `heal-failed`, and
// `<kind>-unreached`: a client said the fault cannot reach its lock's runtime, e.g. a clock
// step and a Go binary): a fault the plan asked for that never took effect makes the run inconclusive,
// with the reason in words. The history is the evidence, so `lockpick check` and
// a reader of history.jsonl see the same thing.
import { getOwn, setOwn } from '../own-key.ts';
import type { HistoryEvent } from '../history/types.ts';
import type { FaultSpec } from '../../nemesis/types.ts';
import { anchoredClient, anchorPoint, describeFault, isAnchoredPause } from '../workload/plan.ts';

export interface FaultEffects {
  applied: Record<string, number>;   // kind → faults that started (took effect)
  healed: Record<string, number>;    // kind → faults whose stop was recorded
  missing: string[];                 // one sentence per planned fault that never took effect
  /** The plan's kinds none of whose faults took effect, each with the first reason: these make the run inconclusive. */
  kindsMissing: string[];
}

/** Nemesis event names that are not a fault kind's own. */
const RUNNER_EVENTS = new Set(['run-start', 'run-end', 'heal-failed', 'fault-not-applied']);

function kindOf(f: string, suffix: string): string | undefined {
  return f.endsWith(suffix) && !RUNNER_EVENTS.has(f) ? f.slice(0, -suffix.length) : undefined;
}

/** runMs: how long the run lasted from its time 0 (for "the run ended before it was due"). */
export function faultEffects(faults: readonly FaultSpec[], events: readonly HistoryEvent[], runMs: number): FaultEffects {
  // Kinds come from the history's nemesis events (a report reads a user's file): own keys only.
  const applied: Record<string, number> = {};
  const healed: Record<string, number> = {};
  const failed = new Map<string, string[]>();
  const unreached = new Map<string, string[]>();
  for (const e of events) {
    if (e.process !== 'nemesis') continue;
    const v = (e.value ?? {}) as Record<string, unknown>;
    let k: string | undefined;
    if ((k = kindOf(e.f, '-unreached'))) { const l = unreached.get(k) ?? []; unreached.set(k, l); l.push(`client ${String(v.client ?? '?')}: ${String(v.reason ?? 'no reason recorded')}`); }
    else if ((k = kindOf(e.f, '-start-failed'))) { const l = failed.get(k) ?? []; failed.set(k, l); l.push(String(v.error ?? 'no reason recorded')); }
    else if ((k = kindOf(e.f, '-start'))) setOwn(applied, k, (getOwn(applied, k) ?? 0) + 1);
    else if ((k = kindOf(e.f, '-stop'))) setOwn(healed, k, (getOwn(healed, k) ?? 0) + 1);
  }
  const missing: string[] = [];
  const seen = new Map<string, number>();
  let earlierFailed = false;
  for (const f of [...faults].sort((a, b) => a.at_ms - b.at_ms)) {
    const n = (seen.get(f.kind) ?? 0) + 1;
    seen.set(f.kind, n);
    if (n <= (getOwn(applied, f.kind) ?? 0)) continue;
    const failure = failed.get(f.kind)?.shift();
    const what = `fault "${describeFault(f)}" never took effect`;
    if (failure !== undefined) {
      missing.push(`${what}: it failed to start: ${failure}`);
      earlierFailed = true;
    } else if (isAnchoredPause(f)) {
      missing.push(`${what}: client ${anchoredClient(f) ?? String(f.target)} did not reach '${anchorPoint(f)}' after ${f.at_ms} ms`);
    } else if (earlierFailed) {
      missing.push(`${what}: the schedule stopped at an earlier fault that failed`);
    } else if (f.at_ms >= runMs) {
      missing.push(`${what}: the clients were done after ${Math.round(runMs)} ms, before it was due`);
    } else {
      missing.push(`${what}: no start was recorded`);
    }
  }
  const kindsMissing: string[] = [];
  // Started, but not felt where it matters: the kind is not counted as applied in this run.
  for (const [kind, reasons] of unreached) {
    if (!faults.some((f) => f.kind === kind)) continue;
    const why = `fault '${kind}' did not reach the lock: ${[...new Set(reasons)].join('; ')}`;
    missing.push(why);
    kindsMissing.push(why);
    setOwn(applied, kind, 0);
  }
  for (const kind of new Set(faults.map((f) => f.kind))) {
    if ((getOwn(applied, kind) ?? 0) > 0 || unreached.has(kind)) continue;
    const first = missing.find((m) => m.includes(`never took effect`) && faults.some((f) => f.kind === kind && m.startsWith(`fault "${describeFault(f)}"`)));
    kindsMissing.push(first ?? `no '${kind}' fault took effect`);
  }
  return { applied, healed, missing, kindsMissing };
}
