// The protected-resource check. Inside each critical section a client reads a
// counter and writes read+1; the resource logs every step in its own order.
// Mutual exclusion held for the resource when every accepted write was written
// on top of the value its writer read (no one wrote in between) and the final
// value counts every accepted write. With fencing, steps carrying a token lower
// than the highest seen (or equal to it, from another client) are rejected:
// those are reported as prevented (good).
import type { Anomaly } from './types.ts';
import { checkOccupancy } from './occupancy.ts';

/** One step as the resource logged it (src/runner/resource-store.ts). */
export interface ResourceEntry {
  key: string;
  seq: number;               // position in the key's log
  op: 'read' | 'write' | 'enter' | 'leave';   // enter/leave: a semaphore's or read-write lock's holder (./occupancy.ts)
  client: string;
  process: number;
  prev: number;              // counter value when the step ran
  accepted: boolean;
  token?: number;            // fenced steps only
  max?: number;              // highest token seen before this step (fenced)
  value?: number;            // write: the value written
  read?: number;             // write: the value its writer had read
  mode?: string;             // enter/leave: 'exclusive' or 'shared' (a read-write lock)
  permits?: number;          // enter/leave: the permits the holder took (a semaphore)
  limit?: number;            // enter/leave: the semaphore's limit
}

export interface ResourceResult {
  valid: boolean;
  fenced: boolean;
  keys: number;
  writes: number;                 // write steps that reached the resource
  accepted: number;               // of those, accepted
  lostUpdates: number;            // accepted increments that the final values do not count
  staleWritesAccepted: number;    // accepted writes made on top of a value their writer had not read
  staleStepsPrevented: number;    // steps the fencing check rejected
  anomalies: Anomaly[];
  message: string;
}

export function checkResource(entries: readonly ResourceEntry[], finals: Record<string, number>): ResourceResult {
  const anomalies: Anomaly[] = [];
  let writes = 0;
  let accepted = 0;
  let lost = 0;
  let stale = 0;
  let prevented = 0;
  let fenced = false;
  const byKey = new Map<string, ResourceEntry[]>();
  for (const e of entries) {
    if (!byKey.has(e.key)) byKey.set(e.key, []);
    byKey.get(e.key)!.push(e);
  }
  let stays = 0;
  for (const [key, log] of byKey) {
    log.sort((a, b) => a.seq - b.seq);
    if (log.some((e) => e.op === 'enter' || e.op === 'leave')) {
      const o = checkOccupancy(key, log);
      anomalies.push(...o.anomalies);
      stays += o.stays;
      continue;
    }
    let last: ResourceEntry | undefined;   // last accepted write
    let maxToken = -Infinity;
    let maxOwner = '';
    let acceptedHere = 0;
    for (const e of log) {
      if (e.token !== undefined) fenced = true;
      if (!e.accepted) {
        prevented++;
        continue;
      }
      if (e.token !== undefined) {
        if (e.token < maxToken || (e.token === maxToken && e.client !== maxOwner)) {
          anomalies.push({
            type: 'stale-token', key, processes: [e.process], lines: [],
            message: `the resource accepted a ${e.op} by client ${e.client} (process ${e.process}) with fencing token ${e.token} after it had seen token ${maxToken}${e.token === maxToken ? ` from client ${maxOwner}` : ''}`,
          });
        }
        if (e.token > maxToken) {
          maxToken = e.token;
          maxOwner = e.client;
        }
      }
      if (e.op !== 'write') continue;
      writes++;
      accepted++;
      acceptedHere++;
      if (e.read !== undefined && e.prev !== e.read) {
        stale++;
        const victim = last && last.value === e.prev ? last : undefined;
        anomalies.push({
          type: 'stale-write', key, processes: victim ? [e.process, victim.process] : [e.process], lines: [],
          message: `client ${e.client} (process ${e.process}) read ${e.read} but wrote ${e.value} on top of ${e.prev}` +
            (victim ? `, overwriting the update of client ${victim.client} (process ${victim.process})` : '') +
            ': two clients were in the critical section at once',
        });
      }
      last = e;
    }
    for (const e of log) if (e.op === 'write' && !e.accepted) writes++;
    const final = finals[key] ?? 0;
    if (final < acceptedHere) {
      lost += acceptedHere - final;
      anomalies.push({
        type: 'lost-update', key, processes: [], lines: [],
        message: `${acceptedHere} increments of '${key}' were accepted but the counter ends at ${final}: ${acceptedHere - final} update(s) lost`,
      });
    }
  }
  const valid = anomalies.length === 0;
  const parts = stays && !writes ? [`${stays} stay(s) counted`] : [`${accepted} of ${writes} writes accepted`];
  if (stays && writes) parts.push(`${stays} stay(s) counted`);
  const over = anomalies.filter((a) => a.type === 'over-admission' || a.type === 'writer-beside-reader' || a.type === 'writer-beside-writer').length;
  if (stays) parts.push(over ? `${over} holder(s) inside beyond what the lock allows` : 'never more inside than the lock allows');
  parts.push(lost ? `${lost} update(s) lost` : 'no update lost');
  parts.push(stale ? `${stale} stale write(s) accepted` : 'no stale write accepted');
  if (fenced || prevented) parts.push(`${prevented} stale step(s) rejected by the fencing check`);
  return {
    valid, fenced, keys: byKey.size, writes, accepted, lostUpdates: lost, staleWritesAccepted: stale, staleStepsPrevented: prevented,
    anomalies, message: `resource: ${parts.join(', ')}`,
  };
}
