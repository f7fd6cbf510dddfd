// Writes a large one-key mutex history (JSON Lines, docs/history-format.md) straight to a file, without
// holding the events in memory: 10 clients, 1% info, optionally one injected double holder (a
// fresh process acquires and releases right after some acquire ok, a third of the way in).
// Used by `npm run bench -- --big` and by hand:
//   node --import tsx bench/big-mutex.ts OUT.jsonl OPS [--double-holder]
import { closeSync, openSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HistoryEvent } from '../src/history/types.ts';
import { seeded } from '../test/support/choices.ts';
import { simulateLock } from '../test/support/lock-sim.ts';

/** Process id of the injected double holder: above any id the simulator hands out. */
const INTRUDER = 2 ** 31;

export function writeBigMutex(file: string, ops: number, doubleHolder: boolean, infoPct = 1): { events: number } {
  const fd = openSync(file, 'w');
  let buf: string[] = [];
  let events = 0;
  let injectAt = doubleHolder ? Math.floor(ops * 2 / 3) : Infinity; // ~2 events per op: a third of the file
  const out = (e: HistoryEvent) => {
    buf.push(JSON.stringify(e));
    events++;
    if (buf.length >= 20_000) { writeSync(fd, buf.join('\n') + '\n'); buf = []; }
  };
  try {
    simulateLock({ clients: 10, keys: 1, steps: Infinity, maxOps: ops, infoPerMille: infoPct * 5, failPerMille: 20, renewPerMille: 0 }, seeded(ops + 1 + infoPct), (e) => {
      out(e);
      if (events >= injectAt && e.type === 'ok' && e.f === 'acquire') {
        injectAt = Infinity;
        const key = e.key ?? '';
        for (const f of ['acquire', 'release']) for (const type of ['invoke', 'ok'] as const) out({ type, f, process: INTRUDER, key });
      }
    });
    if (buf.length) writeSync(fd, buf.join('\n') + '\n');
  } finally { closeSync(fd); }
  return { events };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, n] = process.argv.slice(2);
  if (!file || !n) { console.error('usage: node --import tsx bench/big-mutex.ts OUT.jsonl OPS [--double-holder]'); process.exit(2); }
  console.log(writeBigMutex(file, Number(n), process.argv.includes('--double-holder')));
}
