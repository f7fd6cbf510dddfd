// Writes a large one-key counting-semaphore history (JSON Lines, docs/history-format.md
// "Semaphores and read-write locks") straight to a file, without holding the events: 10 clients
// on a semaphore of 3 permits, each acquire taking 1; a client finding it full is refused (fail);
// 1 % of releases end info (the release took effect, the answer was lost: the client goes on as a
// new process). OPS counts invokes (acquires and releases). Optionally one over-admission: a fresh process is admitted while 3 hold, a third
// of the way in. Used by `npm run bench` and by hand:
//   node --import tsx bench/big-semaphore.ts OUT.jsonl OPS [--over-admission]
import { closeSync, openSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { seeded } from '../test/support/choices.ts';

const LIMIT = 3;
const CLIENTS = 10;
/** Process id of the injected extra holder: above any id the generator hands out. */
const INTRUDER = 2 ** 31;

export function writeBigSemaphore(file: string, ops: number, overAdmission: boolean): { events: number } {
  const fd = openSync(file, 'w');
  let buf: string[] = [];
  let events = 0;
  let time = 0;
  const out = (type: string, f: string, process: number, acquire: boolean) => {
    time += 10_000;
    buf.push(`{"type":"${type}","f":"${f}","process":${process},"key":"slots","time":${time}${acquire ? `,"limit":${LIMIT}` : ''}}`);
    events++;
    if (buf.length >= 20_000) { writeSync(fd, buf.join('\n') + '\n'); buf = []; }
  };
  const rnd = seeded(ops + (overAdmission ? 1 : 0));
  // Per client: its process id and where it is: 0 idle, 1 acquiring, 2 holding, 3 releasing.
  const pid = Array.from({ length: CLIENTS }, (_, i) => i);
  const state = new Array<number>(CLIENTS).fill(0);
  let next = CLIENTS, held = 0, invoked = 0;
  let injectAt = overAdmission ? Math.floor(ops / 3) : Infinity;
  try {
    while (invoked < ops || state.some((s) => s === 1 || s === 3)) {
      const c = rnd.int(CLIENTS);
      const p = pid[c]!;
      switch (state[c]) {
        case 0:
          if (invoked >= ops) break;
          out('invoke', 'acquire', p, true); invoked++; state[c] = 1; break;
        case 1:
          if (held < LIMIT) { out('ok', 'acquire', p, true); held++; state[c] = 2; } else { out('fail', 'acquire', p, true); state[c] = 0; }
          if (state.filter((x) => x === 2).length === LIMIT && invoked >= injectAt) {
            injectAt = Infinity;
            for (const [type, f] of [['invoke', 'acquire'], ['ok', 'acquire'], ['invoke', 'release'], ['ok', 'release']] as const) out(type, f, INTRUDER, f === 'acquire');
          }
          break;
        case 2:
          if (invoked >= ops && rnd.chance(500)) break;
          out('invoke', 'release', p, false); invoked++; state[c] = 3; break;
        default:
          held--;
          if (rnd.chance(10)) { out('info', 'release', p, false); pid[c] = next++; } else out('ok', 'release', p, false);
          state[c] = 0;
      }
    }
    if (buf.length) writeSync(fd, buf.join('\n') + '\n');
  } finally { closeSync(fd); }
  return { events };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, n] = process.argv.slice(2);
  if (!file || !n) { console.error('usage: node --import tsx bench/big-semaphore.ts OUT.jsonl OPS [--over-admission]'); process.exit(2); }
  console.log(writeBigSemaphore(file, Number(n), process.argv.includes('--over-admission')));
}
