// When each client process was kept from every server (docs/history-format.md, nemesis records):
// a fault's start record names the processes it silences (`silenced_processes`: a SIGSTOP of the
// client, a cut of all its links, a cut of its keep-alive connection), its stop record (same `id`,
// or the same `client` for an anchored fault) ends that. A hold whose server keeps it only while
// it hears from its client (a lease kept alive out of sight, a session) cannot outlive a silence
// longer than that: the exposure of checkers/holds.ts. Plain data, so a check thread can take it.
import type { NemesisEvent } from '../src/history/types.ts';

/** process → its silences, [from, to] in ns (to: Infinity while still open). */
export type Silences = ReadonlyMap<number, readonly (readonly [number, number])[]>;

const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {});

/** Reads silences from nemesis records as they come (the streaming check feeds them in file order). */
export class SilenceReader {
  readonly silences = new Map<number, [number, number][]>();
  /** Open silences by fault, each with its intervals (closed in place by its stop record). */
  private readonly open = new Map<string, [number, number][]>();

  feed(n: NemesisEvent): void {
    if (n.f === 'joined-fault') { this.join(n); return; }
    const m = /^(.*)-(start|stop)$/.exec(n.f);
    if (!m || n.time === undefined) return;
    const v = obj(n.value);
    const id = `${m[1]}|${String(v.id ?? v.client ?? '')}`;
    if (m[2] === 'start') {
      const procs = Array.isArray(v.silenced_processes) ? v.silenced_processes.filter((p): p is number => Number.isSafeInteger(p)) : [];
      // A start whose clients had no process yet still opens: they join it as they begin (`joined-fault`).
      if (procs.length === 0 && !(Array.isArray(v.silenced) && v.silenced.length > 0)) return;
      const spans: [number, number][] = [];
      for (const p of procs) {
        const span: [number, number] = [n.time, Infinity];
        spans.push(span);
        let l = this.silences.get(p);
        if (!l) this.silences.set(p, (l = []));
        l.push(span);
      }
      this.open.set(id, spans);
    } else {
      const spans = this.open.get(id);
      if (!spans) return;
      for (const s of spans) s[1] = n.time;
      this.open.delete(id);
    }
  }

  /** A client's new process under a silence already begun (`joined-fault`: its kind and id): silenced from here to that fault's stop. */
  private join(n: NemesisEvent): void {
    const v = obj(n.value);
    const spans = this.open.get(`${String(v.kind)}|${String(v.id)}`);
    if (!spans || n.time === undefined || !Array.isArray(v.silenced_processes)) return;
    for (const p of v.silenced_processes.filter((x): x is number => Number.isSafeInteger(x))) {
      const span: [number, number] = [n.time, Infinity];
      spans.push(span);
      let l = this.silences.get(p);
      if (!l) this.silences.set(p, (l = []));
      l.push(span);
    }
  }
}

export function silencesOf(nemesis: readonly NemesisEvent[]): Silences {
  const r = new SilenceReader();
  for (const n of nemesis) r.feed(n);
  return r.silences;
}

/** The longest silence of process p inside [from, to] (ns), clipped to it, with where it lies. */
export function longestSilence(s: Silences | undefined, p: number, from: number, to: number): { ms: number; from: number; to: number } | undefined {
  let best: { ms: number; from: number; to: number } | undefined;
  for (const [a, b] of s?.get(p) ?? []) {
    const lo = Math.max(a, from), hi = Math.min(b, to);
    if (hi > lo && (!best || hi - lo > best.to - best.from)) best = { ms: (hi - lo) / 1e6, from: lo, to: hi };
  }
  return best;
}
