// Well-formed but otherwise arbitrary lock histories (any op, any outcome, re-acquires, stale
// releases, tokens in any order): what a buggy lock could produce. Used to cross-check the
// mutex sweep against the general search on every corner the simulator never reaches.
import fc from 'fast-check';
import type { HistoryEvent } from '../../src/history/types.ts';

const F = ['acquire', 'acquire', 'release', 'release', 'renew'] as const;
const T = ['ok', 'ok', 'ok', 'fail', 'info'] as const;

export function randomLockOpsArb(maxSteps = 40): fc.Arbitrary<HistoryEvent[]> {
  const step = fc.record({ who: fc.nat({ max: 3 }), what: fc.nat({ max: 99 }), key: fc.nat({ max: 1 }), token: fc.nat({ max: 6 }) });
  return fc.array(step, { maxLength: maxSteps, size: 'max' }).map((steps) => {
    const pids = [0, 1, 2, 3];
    let next = 4;
    const open = new Map<number, HistoryEvent>();
    const events: HistoryEvent[] = [];
    for (const s of steps) {
      const p = pids[s.who]!;
      const inv = open.get(p);
      if (!inv) {
        const e: HistoryEvent = { type: 'invoke', f: F[s.what % F.length]!, process: p, key: `k${s.key}` };
        open.set(p, e);
        events.push(e);
        continue;
      }
      const type = T[s.what % T.length]!;
      const e: HistoryEvent = { type, f: inv.f, process: p, key: inv.key };
      if (type === 'ok' && inv.f === 'acquire' && s.what % 3 !== 0) e.value = { token: s.token };
      if (type === 'ok' && inv.f === 'release' && s.what % 7 === 1) e.value = { lost: true };
      events.push(e);
      open.delete(p);
      if (type === 'info') pids[s.who] = next++;
    }
    return events;
  });
}
