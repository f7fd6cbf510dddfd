// Well-formed but otherwise arbitrary lock histories (any op, any outcome, re-acquires, stale
// releases, tokens in any order, failed releases, leases that run out or not): what a buggy lock
// could produce. Used to cross-check the mutex sweep against the general search on every corner
// the simulator never reaches. Times advance by 0–2 ms per event (now and then an event has no
// time); an ok acquire or renew may carry lease_ms of 1–4 ms, so leases run out mid-history.
import fc from 'fast-check';
import type { HistoryEvent } from '../../src/history/types.ts';

const F = ['acquire', 'acquire', 'release', 'release', 'renew'] as const;
const T = ['ok', 'ok', 'ok', 'fail', 'info'] as const;
const LEASE_MS = [undefined, undefined, 1, 2, 4] as const;

export function randomLockOpsArb(maxSteps = 40): fc.Arbitrary<HistoryEvent[]> {
  const step = fc.record({
    who: fc.nat({ max: 3 }), what: fc.nat({ max: 99 }), key: fc.nat({ max: 1 }), token: fc.nat({ max: 6 }),
    gap: fc.nat({ max: 4 }), lease: fc.nat({ max: LEASE_MS.length - 1 }), untimed: fc.nat({ max: 24 }),
  });
  return fc.array(step, { maxLength: maxSteps, size: 'max' }).map((steps) => {
    const pids = [0, 1, 2, 3];
    let next = 4;
    let time = 0;
    const open = new Map<number, HistoryEvent>();
    const events: HistoryEvent[] = [];
    for (const s of steps) {
      const p = pids[s.who]!;
      const inv = open.get(p);
      time += s.gap * 500_000;
      const at = s.untimed === 0 ? {} : { time };
      if (!inv) {
        const e: HistoryEvent = { type: 'invoke', f: F[s.what % F.length]!, process: p, key: `k${s.key}`, ...at };
        open.set(p, e);
        events.push(e);
        continue;
      }
      const type = T[s.what % T.length]!;
      const e: HistoryEvent = { type, f: inv.f, process: p, key: inv.key, ...at };
      // fenced-mutex needs a token on every ok acquire; any token, so they may go backwards.
      if (type === 'ok' && inv.f === 'acquire') e.value = { token: s.token };
      if (type === 'ok' && inv.f === 'release' && s.what % 7 === 1) e.value = { lost: true };
      if (type === 'ok' && inv.f === 'release' && s.what % 11 === 2) e.value = { lapse: true };
      const lease = LEASE_MS[s.lease];
      if (type === 'ok' && (inv.f === 'acquire' || inv.f === 'renew') && lease !== undefined) e.lease_ms = lease;
      events.push(e);
      open.delete(p);
      if (type === 'info') pids[s.who] = next++;
    }
    return events;
  });
}

/** Random lock ops with what a semaphore of 2 (1 or 2 permits) or an rwlock (either mode) records on each acquire, invoke and completion alike. */
export function permitOpsArb(kind: 'semaphore' | 'rwlock', maxSteps = 40): fc.Arbitrary<HistoryEvent[]> {
  return fc.tuple(randomLockOpsArb(maxSteps), fc.array(fc.boolean(), { minLength: 64, maxLength: 64 })).map(([events, coins]) => {
    const open = new Map<unknown, Record<string, unknown>>();
    let n = 0;
    return events.map((e) => {
      const { value, ...rest } = e;
      // Tokens mean nothing here; lost and lapse releases stay.
      const out: HistoryEvent = { ...rest, ...(e.f === 'release' && value !== undefined ? { value } : {}) };
      if (e.f !== 'acquire') return out;
      if (e.type === 'invoke') {
        const heads = coins[n++ % coins.length]!;
        open.set(e.process, kind === 'semaphore' ? { limit: 2, permits: heads ? 1 : 2 } : { mode: heads ? 'shared' : 'exclusive' });
      }
      return { ...out, ...open.get(e.process) };
    });
  });
}

