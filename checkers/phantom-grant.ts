// An acquire that returned ok while its client could reach no server: every link from the client
// to the servers was cut (a partition, a keep-alive cut of all its links) from before the acquire
// was invoked until after it returned. No request of that acquire reached a server and no reply
// came back, so no server granted it: the lock answered held on its own (an error or a timeout
// read as success, a cached state taken for the server's word). A bug of the lock, whatever the
// servers did.
//
// When a client was cut off comes from the nemesis records (docs/history-format.md): a fault's
// start names the processes it cut off (`cut_off_processes`) and is written once the cut is in
// place; its stop says when the heal `began`, before any link came back. A cut off span is
// [start's time, stop's began]: both on the safe side. A stop without `began` (another tool's
// history) ends no span this check trusts: what fell in it is not judged. Under a reentrant model
// an acquire by a process that already holds the key may be answered from the client's own count
// (Curator's re-entry is local): nothing is judged there.
import type { NemesisEvent, Op } from '../src/history/types.ts';
import type { Anomaly } from './types.ts';
import { lockName } from './messages.ts';

const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {});

interface Span { from: number; to: number; fault: string; startLine: number; stopLine?: number; trusted: boolean }

export class PhantomGrantScan {
  readonly anomalies: Anomaly[] = [];
  /** process → its cut-off spans (to: Infinity while open). */
  private readonly spans = new Map<number, Span[]>();
  /** Open spans by fault (kind and id), closed by its stop record. */
  private readonly open = new Map<string, Span[]>();
  /** The line of each open fault's start record (a joined span names it). */
  private readonly openLine = new Map<string, number>();
  /** Acquire oks inside a span still open: judged when it closes (its heal may have begun before the ok was written). */
  private pending: { op: Op; span: Span }[] = [];

  /** reentrant: the model lets a holder acquire again, which its client may answer alone. */
  constructor(private readonly reentrant = false) {}

  feed(n: NemesisEvent): void {
    // A client's new process under a cut already begun (its first of a run, its next after an info): cut off from here on too.
    const joined = n.f === 'joined-fault' ? obj(n.value) : undefined;
    const m = joined ? [n.f, String(joined.kind), 'start'] : /^(.*)-(start|stop)$/.exec(n.f);
    if (!m || n.time === undefined) return;
    const v = obj(n.value);
    const id = `${m[1]}|${String(v.id ?? v.client ?? '')}`;
    if (m[2] === 'start') {
      const procs = Array.isArray(v.cut_off_processes) ? v.cut_off_processes.filter((p): p is number => Number.isSafeInteger(p)) : [];
      const open = this.open.get(id);
      // A start whose clients had no process yet still opens its span list: they join it as they begin.
      if (joined ? !open || procs.length === 0 : procs.length === 0 && !(Array.isArray(v.cut_off) && v.cut_off.length > 0)) return;
      const spans: Span[] = open && joined ? open : [];
      for (const p of procs) {
        const span: Span = { from: n.time, to: Infinity, fault: m[1]!, startLine: joined ? this.openLine.get(id) ?? n.line : n.line, trusted: true };
        spans.push(span);
        let l = this.spans.get(p);
        if (!l) this.spans.set(p, (l = []));
        l.push(span);
      }
      this.open.set(id, spans);
      if (!joined) this.openLine.set(id, n.line);
      return;
    }
    const spans = this.open.get(id);
    if (!spans) return;
    this.open.delete(id);
    this.openLine.delete(id);
    const began = typeof v.began === 'number' && Number.isFinite(v.began) ? v.began : undefined;
    for (const s of spans) {
      s.to = began ?? n.time;
      s.stopLine = n.line;
      s.trusted = began !== undefined;
    }
    const still: { op: Op; span: Span }[] = [];
    for (const c of this.pending) {
      if (!spans.includes(c.span)) still.push(c);
      else this.judge(c.op, c.span);
    }
    this.pending = still;
  }

  complete(op: Op): void {
    // Most histories have no cut at all: one map size per completion.
    if (this.spans.size === 0 || this.reentrant || op.f !== 'acquire' || op.outcome !== 'ok') return;
    const from = op.invokeTime, to = op.completeTime;
    if (from === undefined || to === undefined) return;
    const span = this.spans.get(op.process)?.find((s) => s.from <= from && (s.to === Infinity || to <= s.to));
    if (!span) return;
    if (span.to === Infinity) this.pending.push({ op, span });
    else this.judge(op, span);
  }

  /** Ends the history: spans never healed in it stay cut off to its end. */
  finish(): Anomaly[] {
    for (const c of this.pending) this.judge(c.op, c.span);
    this.pending = [];
    return this.anomalies;
  }

  private judge(op: Op, s: Span): void {
    if (!s.trusted || op.invokeTime! < s.from || (s.to !== Infinity && op.completeTime! > s.to)) return;
    const until = s.stopLine === undefined ? 'not healed before the end of the history' : `healed at line ${s.stopLine}`;
    this.anomalies.push({
      type: 'phantom-grant',
      key: op.key,
      processes: [op.process],
      lines: [op.invokeLine, op.completeLine, s.startLine],
      times: [op.invokeTime!, op.completeTime!],
      ops: [op.id],
      message: `process ${op.process}'s acquire of ${lockName(op.key)} at line ${op.invokeLine} returned ok at line ${op.completeLine}, while every link of its client to the servers was cut (${s.fault} from line ${s.startLine}, ${until}): no request of it reached a server, so no server granted it; the lock answered held on its own (an error or a timeout read as success, or a cached state taken for the server's word)`,
    });
  }
}

/** The phantom grants of a history held in memory (none to look for without a cut-off record). */
export function phantomGrants(ops: readonly Op[], nemesis: readonly NemesisEvent[], reentrant = false): Anomaly[] {
  if (reentrant || !nemesis.some((n) => Array.isArray(obj(n.value).cut_off_processes))) return [];
  // File order: each acquire ok's completion and each nemesis record, by their position in the file.
  const events: { seq: number; run: () => void }[] = [];
  const scan = new PhantomGrantScan();
  for (const op of ops) if (op.f === 'acquire' && op.outcome === 'ok') events.push({ seq: op.completeSeq, run: () => scan.complete(op) });
  for (const n of nemesis) events.push({ seq: n.seq, run: () => scan.feed(n) });
  events.sort((a, b) => a.seq - b.seq);
  for (const e of events) e.run();
  return scan.finish();
}
