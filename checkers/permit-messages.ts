// Plain words for the anomalies of semaphores and read-write locks (checkers/permit-sweep.ts), in
// the mutex's manner (checkers/messages.ts): who held, from which line to which, and why that breaks it.
import type { Op } from '../src/history/types.ts';
import type { Anomaly } from './types.ts';
import type { AnomalyType } from './anomaly-kinds.ts';
import type { Conflict, HeldMisstep, LeakEpisode, PermitBelief, PermitKind } from './permit-sweep.ts';
import { LEAK_BOUND_MS } from './permit-sweep.ts';

const defined = (xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined && Number.isFinite(x));
const ms = (ns: number) => Math.round(ns / 1e6);
const name = (kind: PermitKind, key: string) => `${kind === 'semaphore' ? 'semaphore' : 'read-write lock'}${key === '' ? '' : ` "${key}"`}`;
const permits = (n: number) => `${n} permit${n === 1 ? '' : 's'}`;

function since(b: PermitBelief, kind: PermitKind): string {
  const what = kind === 'semaphore' ? permits(b.permits) : b.shared ? 'reading' : 'writing';
  return `process ${b.process} (${what}, since line ${b.acquire.completeLine})`;
}

/** "a, b and c". */
function andList(xs: string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/** The belief among these that ends first: where the overlap (as reported) ends. */
function firstEnd(bs: readonly PermitBelief[]): PermitBelief {
  return bs.reduce((a, b) => (b.end < a.end ? b : a));
}

/** second's belief started while others held: `holders` says who, `why` what broke. */
function overlap(key: string, type: AnomalyType, second: PermitBelief, others: PermitBelief[], head: string, holders: string, why: string): Anomaly {
  const all = [...others, second];
  const end = firstEnd(all);
  const endOp = end.release;
  const to = end.end === Infinity ? 'to the end of the history' : endOp ? `to line ${endOp.invokeLine} (process ${end.process}'s ${endOp.f})` : `until process ${end.process}'s reported validity ran out`;
  return {
    type, key,
    processes: all.map((b) => b.process),
    lines: defined([...all.map((b) => b.acquire.completeLine), endOp?.invokeLine]),
    ...(second.acquire.completeTime !== undefined ? { times: defined([second.acquire.completeTime, endOp?.invokeTime]) } : {}),
    ops: [...all.map((b) => b.acquire.id), ...defined(all.map((b) => b.release?.id))],
    message: `${head}: process ${second.process}'s acquire at line ${second.acquire.invokeLine} returned ok at line ${second.acquire.completeLine} ` +
      `${holders} held it; ${why}, from line ${second.acquire.completeLine} ${to}`,
  };
}

/** The anomalies of one conflict: an over-admission, or a writer beside readers and/or a writer. */
export function conflictAnomaly(key: string, kind: PermitKind, c: Conflict): Anomaly[] {
  const { second, open } = c;
  if (kind === 'semaphore') {
    const used = open.reduce((n, b) => n + b.permits, 0) + second.permits;
    return [overlap(key, 'over-admission', second, open, `over-admission of ${name(kind, key)} (limit ${second.limit})`,
      `(${permits(second.permits)}) while ${andList(open.map((b) => since(b, kind)))}`, `${permits(used)} of ${second.limit} were held at once by ${open.length + 1} clients`)];
  }
  const writers = open.filter((b) => !b.shared);
  const readers = open.filter((b) => b.shared);
  const out: Anomaly[] = [];
  const say = (bs: PermitBelief[]) => andList(bs.map((b) => since(b, kind)));
  if (writers.length) {
    out.push(overlap(key, second.shared ? 'writer-beside-reader' : 'writer-beside-writer', second, writers,
      second.shared ? `a writer beside a reader on ${name(kind, key)}` : `two writers on ${name(kind, key)}`,
      `(${second.shared ? 'reading' : 'writing'}) while ${say(writers)}`,
      second.shared ? 'a reader held it while a writer did' : 'two clients held it for writing at once'));
  }
  if (!second.shared && readers.length) {
    out.push(overlap(key, 'writer-beside-reader', second, readers, `a writer beside a reader on ${name(kind, key)}`,
      `(writing) while ${say(readers)}`, 'a writer held it while readers did'));
  }
  return out;
}

/** An acquire the server could not have granted: the holds that stood had no room for it, though no client's belief shows it. */
export function heldMisstep(key: string, kind: PermitKind, m: HeldMisstep): Anomaly {
  const op = m.op;
  const why = (h: HeldMisstep['standing'][number]) => `process ${h.process}'s hold from line ${h.acquire.completeLine}` +
    (kind === 'semaphore' ? ` (${permits(h.permits)})` : h.shared ? ' (reading)' : ' (writing)') +
    (h.failed ? `, whose release at line ${h.failed.invokeLine} failed` : '') +
    (h.deadline === Infinity ? '' : `, its lease running to ${ms(h.deadline)} ms`);
  return {
    type: 'nonlinearizable', key,
    processes: [...m.standing.map((h) => h.process), op.process],
    lines: defined([...m.standing.map((h) => h.acquire.completeLine), op.completeLine]),
    ops: [...m.standing.map((h) => h.acquire.id), op.id],
    ...(op.completeTime !== undefined ? { times: [op.completeTime] } : {}),
    message: `process ${op.process} acquired ${name(kind, key)} at line ${op.completeLine}` +
      `${kind === 'semaphore' ? ` (${permits(op.permits ?? 1)} of ${op.limit ?? 1})` : op.mode === 'shared' ? ' for reading' : ' for writing'}, ` +
      `but the server still held ${andList(m.standing.map(why))}: no order of the operations lets it in`,
  };
}

function orphanWords(op: Op): string {
  if (op.f === 'acquire') return `process ${op.process}'s acquire at line ${op.invokeLine} got no answer (info) and may hold its permits with nobody to release them`;
  return `process ${op.process}'s release at line ${op.invokeLine} failed, so the server kept its hold though the client had let go`;
}

/** A permit leak (liveness): entry refused for longer than LEAK_BOUND_MS while only orphaned holds filled the lock. */
export function permitLeak(key: string, kind: PermitKind, e: LeakEpisode): Anomaly {
  const span = ms(e.last.completeTime! - e.first.invokeTime!);
  return {
    type: 'permit-leak', key,
    processes: [...new Set([...e.orphans.map((o) => o.process), ...e.processes])],
    lines: defined([...e.orphans.map((o) => o.invokeLine), e.first.invokeLine, e.last.completeLine]),
    times: [e.first.invokeTime!, e.last.completeTime!],
    ops: [...e.orphans.map((o) => o.id), e.first.id, e.last.id],
    message: `permits of ${name(kind, key)} were held at the server by no live client while ${e.refused} acquire${e.refused === 1 ? ' was' : 's were'} refused ` +
      `over ${span} ms (lines ${e.first.invokeLine} to ${e.last.completeLine}, more than the ${LEAK_BOUND_MS} ms bound), though the clients holding it left room: ` +
      `${andList(e.orphans.map(orphanWords))}. Liveness, not safety: nobody held what it should not, but entry was blocked by holds no client can end`,
  };
}
