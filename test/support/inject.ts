// Injects exactly one violation into a simulated (correct) history's events, and says which
// processes a report must name. `pick` chooses among the possible places (any integer).
import type { HistoryEvent } from '../../src/history/types.ts';

export interface Injected { events: HistoryEvent[]; processes: number[]; kind: string }

const freshPid = (events: readonly HistoryEvent[]) =>
  events.reduce((m, e) => (typeof e.process === 'number' && e.process >= m ? e.process + 1 : m), 0);

const pair = (f: string, process: number, key: string, value?: unknown): HistoryEvent[] => [
  { type: 'invoke', f, process, key },
  value === undefined ? { type: 'ok', f, process, key } : { type: 'ok', f, process, key, value },
];

/** A fresh process acquires (and then releases) a key while another process believes it holds it. */
export function injectDoubleHolder(events: readonly HistoryEvent[], pick: number): Injected {
  const q = freshPid(events);
  const holds: { at: number; end: number; process: number; key: string }[] = [];
  events.forEach((e, i) => {
    if (e.type !== 'ok' || e.f !== 'acquire' || typeof e.process !== 'number') return;
    let end = events.length; // the invoke of the next release, whatever its outcome, else the end
    for (let j = i + 1; j < events.length; j++) {
      const r = events[j]!;
      if (r.process === e.process && r.type === 'invoke' && r.f === 'release') { end = j; break; }
    }
    holds.push({ at: i, end, process: e.process, key: e.key ?? '' });
  });
  if (holds.length === 0) {
    const p = q + 1;
    return { kind: 'double-holder', processes: [p, q], events: [...events, ...pair('acquire', p, 'k0'), ...pair('acquire', q, 'k0')] };
  }
  const h = holds[pick % holds.length]!;
  const j = h.at + 1 + (Math.floor(pick / holds.length) % (h.end - h.at));
  const inserted = [...pair('acquire', q, h.key), ...pair('release', q, h.key)];
  return { kind: 'double-holder', processes: [h.process, q], events: [...events.slice(0, j), ...inserted, ...events.slice(j)] };
}

/** A fresh process's release returns ok although it never held the key. */
export function injectStaleRelease(events: readonly HistoryEvent[], pick: number): Injected {
  const q = freshPid(events);
  const keys = [...new Set(events.filter((e) => e.process !== 'nemesis').map((e) => e.key ?? ''))];
  const key = keys.length ? keys[pick % keys.length]! : 'k0';
  const j = pick % (events.length + 1);
  return { kind: 'stale-release', processes: [q], events: [...events.slice(0, j), ...pair('release', q, key), ...events.slice(j)] };
}

/** One acquire ok gets the same fencing token as the acquire ok before it on its key. */
export function injectStaleToken(events: readonly HistoryEvent[], pick: number): Injected {
  const last = new Map<string, number>();
  const pairs: [number, number][] = [];
  events.forEach((e, i) => {
    if (e.type !== 'ok' || e.f !== 'acquire' || (e.value as { token?: unknown } | undefined)?.token === undefined) return;
    const k = e.key ?? '';
    const prev = last.get(k);
    if (prev !== undefined) pairs.push([prev, i]);
    last.set(k, i);
  });
  if (pairs.length === 0) {
    const p = freshPid(events), q = p + 1;
    const tail = [...pair('acquire', p, 'kt', { token: 1 }), ...pair('release', p, 'kt'), ...pair('acquire', q, 'kt', { token: 1 }), ...pair('release', q, 'kt')];
    return { kind: 'stale-token', processes: [p, q], events: [...events, ...tail] };
  }
  const [a, b] = pairs[pick % pairs.length]!;
  const out = events.slice();
  out[b] = { ...events[b]!, value: { token: (events[a]!.value as { token: unknown }).token } };
  return { kind: 'stale-token', processes: [events[a]!.process as number, events[b]!.process as number], events: out };
}

/** One read ok returns a value nobody ever wrote. */
export function injectWrongRead(events: readonly HistoryEvent[], pick: number): Injected {
  const reads = events.flatMap((e, i) => (e.type === 'ok' && e.f === 'read' ? [i] : []));
  if (reads.length === 0) {
    const q = freshPid(events);
    return { kind: 'wrong-read', processes: [q], events: [...events, { type: 'invoke', f: 'read', process: q, key: 'r0' }, { type: 'ok', f: 'read', process: q, key: 'r0', value: 'never-written' }] };
  }
  const i = reads[pick % reads.length]!;
  const out = events.slice();
  out[i] = { ...events[i]!, value: 'never-written' };
  return { kind: 'wrong-read', processes: [events[i]!.process as number], events: out };
}

/**
 * The same events with every ok acquire given a fencing token, 1, 2, 3... per key in line order
 * (the order a correct fencing service grants them): for fenced-mutex, which needs a token on
 * every ok acquire, after an injection added acquires without one.
 */
export function withTokens(events: readonly HistoryEvent[]): HistoryEvent[] {
  const next = new Map<string, number>();
  return events.map((e) => {
    if (e.type !== 'ok' || e.f !== 'acquire') return e;
    const k = e.key ?? '';
    const t = (next.get(k) ?? 0) + 1;
    next.set(k, t);
    return { ...e, value: { token: t } };
  });
}
