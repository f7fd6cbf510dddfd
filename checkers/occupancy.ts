// The resource check of a semaphore's or read-write lock's holders: each enters the resource
// and leaves it (src/runner/resource-store.ts `occupy`), logged in the resource's own order.
// Counted are the stays that ended with a leave (a holder that crashed or was cut off inside
// never left: it used the resource no further, as a mutex's holder that never writes). A stay
// that began while the permits inside already made the limit is over-admission; an exclusive
// stay that began beside any other, or a shared one beside an exclusive, is a writer beside a
// reader (or a writer).
import type { Anomaly } from './types.ts';

/** One enter or leave as the resource logged it. */
export interface OccupancyStep { seq: number; op: string; client: string; process: number; mode?: string; permits?: number; limit?: number }

interface Stay { client: string; process: number; mode: string; permits: number }

const who = (s: Stay) => `client ${s.client} (process ${s.process})`;

/** The anomalies of one key's log (sorted by seq), and how many stays were counted. */
export function checkOccupancy(key: string, log: readonly OccupancyStep[]): { anomalies: Anomaly[]; stays: number } {
  const anomalies: Anomaly[] = [];
  // Which enters have their leave: a holder's steps come in order, one stay at a time.
  const open = new Map<string, number>();
  const left = new Set<number>();
  for (const e of log) {
    const id = `${e.client}\u0000${e.process}`;
    if (e.op === 'enter') open.set(id, e.seq);
    else if (e.op === 'leave' && open.has(id)) { left.add(open.get(id)!); open.delete(id); }
  }
  const inside = new Map<string, Stay>();
  for (const e of log) {
    const id = `${e.client}\u0000${e.process}`;
    if (e.op === 'leave') { inside.delete(id); continue; }
    if (e.op !== 'enter' || !left.has(e.seq)) continue;
    const stay: Stay = { client: e.client, process: e.process, mode: e.mode ?? 'exclusive', permits: e.permits ?? 1 };
    const others = [...inside.values()];
    if (e.limit !== undefined) {
      const used = others.reduce((n, s) => n + s.permits, 0);
      if (used + stay.permits > e.limit) {
        anomalies.push({
          type: 'over-admission', key, processes: [e.process, ...others.map((s) => s.process)], lines: [],
          message: `${who(stay)} entered the resource with ${stay.permits} permit(s) while ${others.map(who).join(', ')} held ${used} of ${e.limit}: more holders than the semaphore's limit at once`,
        });
      }
    } else if (e.mode !== undefined) {
      const clash = stay.mode === 'exclusive' ? others : others.filter((s) => s.mode === 'exclusive');
      if (clash.length) {
        anomalies.push({
          // The lock check's words (checkers/permit-messages.ts): a reader on either side, a writer beside a reader; else two writers.
          type: stay.mode === 'shared' || clash.some((s) => s.mode === 'shared') ? 'writer-beside-reader' : 'writer-beside-writer',
          key, processes: [e.process, ...clash.map((s) => s.process)], lines: [],
          message: `${who(stay)} entered the resource ${stay.mode === 'exclusive' ? 'to write' : 'to read'} while ${clash.map((s) => `${who(s)} was ${s.mode === 'exclusive' ? 'writing' : 'reading'}`).join(', ')}`,
        });
      }
    }
    inside.set(id, stay);
  }
  return { anomalies, stays: left.size };
}
