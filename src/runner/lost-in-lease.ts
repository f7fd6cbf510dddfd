// A release that came back lost while its lease cannot have run out, with no fault on the servers
// since its acquire: something removed a live lock (another client's stale unlock, an overwrite,
// the lock's own bug). Alone it breaks no rule the checker can judge: a lost release is legal at
// any time (a server may forget), and the freed lock shows as a double holder only when another
// client got in. So the search does not call such a lock SAFE (coverage.ts gaps: inconclusive,
// with this example). "Cannot have run out": completed before its acquire's invoke + lease_ms
// (the key was set no earlier), less the servers' own expiry lag (memcached's whole seconds).
// Only faults of clients' own processes (a kind's declared scope 'client': a pause, a clock step,
// a kill) leave the servers' state alone; after any other, or a kind this lockpick does not know,
// while the hold stood, the release is not counted.
import type { HistoryEvent } from '../history/types.ts';
import { kindDef } from '../../nemesis/kinds.ts';
import { RUNNER_RECORDS } from '../history/runner-records.ts';

export interface LostInLease { count: number; example?: string }

interface Hold { invokeNs: number; leaseNs?: number; touched: boolean; client?: string }

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {});

/** `lagMs`: how far the servers' expiry may stray from a lease (Timescales.leaseLagMs), taken off every lease. */
export function lostInsideLease(events: readonly HistoryEvent[], lagMs = 0): LostInLease {
  const out: LostInLease = { count: 0 };
  const serverFaults = new Set<string>();
  const holds = new Map<string, Hold>();   // process and key → its acquire (pending or held)
  for (const e of events) {
    const t = num(e.time);
    if (e.process === 'nemesis') {
      const m = RUNNER_RECORDS.has(e.f) ? null : /^(.*)-(start|stop)$/.exec(e.f);
      if (!m || kindDef(m[1]!)?.scope === 'client') continue;
      const id = `${m[1]}|${String(obj(e.value).id ?? '')}`;
      if (m[2] === 'start') {
        serverFaults.add(id);
        for (const h of holds.values()) h.touched = true;
      } else serverFaults.delete(id);
      continue;
    }
    const id = `${String(e.process)}\u0000${e.key ?? ''}`;
    if (e.f === 'acquire' && e.type === 'invoke' && holds.get(id)?.leaseNs !== undefined) {
      holds.get(id)!.touched = true;   // a re-entry: which acquire set the lease is not known
    } else if (e.f === 'acquire' && e.type === 'invoke' && t !== undefined) {
      holds.set(id, { invokeNs: t, touched: serverFaults.size > 0, ...(typeof e.client === 'string' ? { client: e.client } : {}) });
    } else if (e.f === 'acquire' && e.type === 'ok') {
      const h = holds.get(id);
      const lease = num(e.lease_ms);
      if (h && h.leaseNs !== undefined) continue;   // a re-entry's ok
      if (h && lease !== undefined && obj(e.value).kept_alive !== true) h.leaseNs = Math.max(0, lease - lagMs) * 1e6;
      else holds.delete(id);
    } else if (e.f === 'acquire') {
      if (holds.get(id)?.leaseNs === undefined) holds.delete(id);   // a re-entry's failure leaves the hold
    } else if (e.f === 'release' && e.type !== 'invoke') {
      const h = holds.get(id);
      holds.delete(id);
      if (!h || h.touched || h.leaseNs === undefined || e.type !== 'ok' || obj(e.value).lost !== true || t === undefined) continue;
      const early = h.invokeNs + h.leaseNs - t;
      if (early <= 0) continue;
      out.count++;
      out.example ??= `${h.client ?? `process ${String(e.process)}`}'s release of ${JSON.stringify(e.key ?? '')} came back lost ${Math.round(early / 1e6)} ms before its lease could have ended`;
    }
  }
  return out;
}
