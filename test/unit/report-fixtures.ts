// Histories and results for the report tests, built through the real
// HistoryBuilder (the same pairing and rules as reading a file).
import { HistoryBuilder } from '../../src/history/index.ts';
import type { ParsedHistory } from '../../src/history/types.ts';
import type { CheckResult } from '../../checkers/types.ts';

const ms = (x: number): number => Math.round(x * 1e6);

/** Events of a client pause longer than the TTL with a plain-DEL unlock: p0 and p1 both hold "orders". */
export function doubleHolderEvents(): Record<string, unknown>[] {
  const ev: Record<string, unknown>[] = [];
  const op = (type: string, f: string, process: number, t: number, extra: Record<string, unknown> = {}): void => {
    ev.push({ type, f, process, key: 'orders', time: ms(t), ...extra });
  };
  op('invoke', 'acquire', 0, 0.1); op('ok', 'acquire', 0, 1.2);                  // lines 1-2
  op('invoke', 'acquire', 1, 2); op('fail', 'acquire', 1, 3.1, { error: 'held' }); // 3-4
  ev.push({ process: 'nemesis', type: 'info', f: 'pause-start', value: { client: 0 }, time: ms(5) }); // 5
  op('invoke', 'acquire', 1, 40); op('ok', 'acquire', 1, 41);                     // 6-7
  ev.push({ process: 'nemesis', type: 'info', f: 'pause-stop', value: { client: 0 }, time: ms(58) }); // 8
  op('invoke', 'release', 0, 61); op('ok', 'release', 0, 62);                     // 9-10
  op('invoke', 'acquire', 2, 70); op('info', 'acquire', 2, 80, { error: 'timeout' }); // 11-12
  op('invoke', 'release', 1, 90); op('ok', 'release', 1, 91, { value: { lost: true } }); // 13-14
  return ev;
}

export function build(events: Record<string, unknown>[], source = 'test.jsonl'): ParsedHistory {
  const b = new HistoryBuilder(source);
  events.forEach((e, i) => b.add(e, i + 1));
  return b.finish();
}

/** The checker's double-holder anomaly for doubleHolderEvents (format of checkers/messages.ts). */
export function doubleHolderResult(): CheckResult {
  return {
    valid: false, model: 'mutex', ops: 6, keys: 1, elapsed_ms: 2,
    keys_detail: { orders: { valid: false, ops: 6 } },
    anomalies: [{
      type: 'double-holder', key: 'orders', processes: [0, 1], lines: [2, 7, 9], times: [ms(41), ms(61)], ops: [0, 2, 3],
      message: 'process 1\'s acquire at line 6 returned ok at line 7, but process 0 held lock "orders" since line 2 (acquire ok) until its release at line 9: both held it from line 7 to line 9',
    }],
  };
}

/**
 * n ops over `procs` processes taking turns on one lock, with a partition every
 * 10,000 ops and one double holder planted near the middle. Built straight as
 * data (not through the builder) so a million ops stay quick.
 */
export function bigHistory(n: number, procs = 8): { h: ParsedHistory; r: CheckResult } {
  const ops: ParsedHistory['ops'] = [];
  const nemesis: ParsedHistory['nemesis'] = [];
  let seq = 0;
  for (let i = 0; i < n; i++) {
    if (i % 10_000 === 5_000) nemesis.push({ line: seq + 1, seq, f: i % 20_000 === 5_000 ? 'partition-start' : 'partition-stop', type: 'info', value: { isolate: 'n1' }, time: seq * 1000 }), seq++;
    const f = i % 2 === 0 ? 'acquire' : 'release';
    const outcome = i % 97 === 0 ? 'fail' : 'ok';
    ops.push({
      id: i, process: Math.floor(i / 2) % procs, f, key: 'k', outcome, invokeValue: undefined, value: undefined,
      invokeLine: seq + 1, completeLine: seq + 2, invokeTime: seq * 1000, completeTime: (seq + 1) * 1000, invokeSeq: seq, completeSeq: seq + 1,
    });
    seq += 2;
  }
  const mid = ops[Math.floor(n / 2) & ~1]!;
  const r: CheckResult = {
    valid: false, model: 'mutex', ops: n, keys: 1, elapsed_ms: 900, keys_detail: { k: { valid: false, ops: n } },
    anomalies: [{ type: 'double-holder', key: 'k', processes: [mid.process, (mid.process + 1) % procs], lines: [mid.completeLine, mid.completeLine + 2, mid.completeLine + 4], ops: [mid.id, mid.id + 2],
      message: `planted double holder near op ${mid.id}` }],
  };
  return { h: { source: 'big.jsonl', ops, nemesis, events: seq }, r };
}
