// One process of `npm run bench:stages` (./check-stages.ts): runs one stage of a check on FILEs
// (one after another, as `lockpick check FILE...` reads them) `passes` times in this process and
// prints {"start", "load", "ms", "marks"} as one JSON line: when this module's first line ran (ms since the process began), how long the
// stage's modules took to load, each pass's time, and (read) when the first pass reached each
// 2048th event. The first pass is the cold one (the engine still compiling); later passes run
// the same code warm. Plain JavaScript over dist/, as an installed lockpick runs.
//   node bench/check-stages-child.mjs read|build|check MODEL PASSES FILE...
// LOCKPICK_STAGES_DIST=DIR runs another build's dist/ (a copy kept from before a change), so two
// builds can be compared alternately.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const start = performance.now();
const [stage, model, passesArg, ...files] = process.argv.slice(2);
const passes = Number(passesArg);
const dist = process.env.LOCKPICK_STAGES_DIST ? pathToFileURL(`${path.resolve(process.env.LOCKPICK_STAGES_DIST)}/`) : new URL('../dist/', import.meta.url);
const t0 = performance.now();
const { forEachJsonlEvent } = await import(new URL('src/history/jsonl.js', dist).href);
const { HistoryBuilder } = await import(new URL('src/history/build.js', dist).href);
// The check: the bundle `lockpick check` loads (scripts/bundle-check.mjs), its output dropped.
const check = stage === 'check' ? (await import(new URL('src/commands/check.js', dist).href)).run : undefined;
const load = performance.now() - t0;

/** The read stage's first pass: ms since the pass began at each STEP-th event, up to MARKS of them (how fast the engine gets up to speed). */
const STEP = 2048, MARKS = 16;
const marks = [];

/** One pass of the stage; returns a count so nothing is optimized away. */
async function pass(first) {
  let n = 0;
  const t0 = performance.now();
  if (stage === 'read') {
    // The reader and the scanner alone: each event's fields go to a sink that only counts them.
    const count = first ? () => { if (++n % STEP === 0 && marks.length < MARKS) marks.push(performance.now() - t0); } : () => { n++; };
    const sink = { addFields: count, addCommon: count };
    for (const file of files) await forEachJsonlEvent(file, count, undefined, undefined, sink);
  } else if (stage === 'build') {
    // The reader, the scanner and the history's rules with the pairing of completions (HistoryBuilder), no check.
    for (const file of files) {
      const b = new HistoryBuilder(file, { invoke() { n++; }, complete() { n++; }, nemesis() { n++; } });
      await forEachJsonlEvent(file, (ev, line) => b.add(ev, line), undefined, undefined, b);
    }
  } else {
    const write = process.stdout.write;
    process.stdout.write = () => true;
    try { n = await check([...files, '--model', model, '--json']); } finally { process.stdout.write = write; }
  }
  return n;
}

const ms = [];
for (let i = 0; i < passes; i++) {
  const t = performance.now();
  await pass(i === 0);
  ms.push(performance.now() - t);
}
process.stdout.write(`${JSON.stringify({ start, load, ms, marks, step: STEP })}\n`);
