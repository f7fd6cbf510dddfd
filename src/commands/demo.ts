// `lockpick demo`: the catalogue of failure modes (src/demo/), each a fixed plan
// run on real servers and shown on one page.
import { parseCommandArgs } from './args.ts';
import { join } from 'node:path';
import { writeOutput } from '../output.ts';
import { makeDir } from '../make-dir.ts';
import { EXIT, EXIT_HELP, fsReason, UsageError } from '../errors.ts';
import { DEMOS, findDemo, type DemoEntry } from '../demo/registry.ts';
import { renderIndex } from '../demo/page.ts';
import { runDemo, type DemoOutcome } from '../demo/run.ts';
import { langOption } from '../i18n/lang.ts';

const USAGE = `usage: lockpick demo                      list the catalogue
       lockpick demo NAME... [--out DIR]   run these entries, one page each (default --out store/demo)
       lockpick demo --all [--out DIR]     run every entry and write DIR/index.html

Each entry runs a fixed plan (scenarios/NAME/test.json) on real servers, as
'lockpick run --replay' does, and writes DIR/NAME.html: what the lock does (its
code), the fault, what went wrong, the timeline and the fix. An entry that
should break gets one run to break (each breaks 10 of 10 times: npm run
bench:replay); a session without a verdict (a fault that did not take) is
tried again, up to 3 sessions. DIR/index.html and DIR/index.json list every entry run.

options:
  --out DIR   where the pages and the runs (DIR/runs/) go (default store/demo)
  --all       every entry of the catalogue
  --json      print the outcomes as JSON on stdout
  --lang L    the pages' language: en or zh-CN (default LOCKPICK_LANG, else en)

${EXIT_HELP}
  0 here: every entry gave its expected verdict (UNSAFE where the lock breaks, SAFE where the fix holds);
  1 here: an entry expected SAFE (a fix) broke: a real violation;
  2 here: an unknown NAME (the message lists the catalogue) or a bad option;
  3 here: some entry was not reproduced (no break in its runs) or had no verdict`;

function list(): string {
  const w = Math.max(...DEMOS.map((d) => d.name.length));
  return DEMOS.map((d) => `  ${d.name.padEnd(w)}  ${d.expected.padEnd(6)}  ${d.title}`).join('\n');
}

/** 1 when a fix broke (a violation), else 3 when something was not reproduced, else 0. */
export function demoExitCode(outcomes: DemoOutcome[]): number {
  if (outcomes.some((o) => o.status === 'fix broke')) return EXIT.invalid;
  if (outcomes.some((o) => o.status === 'not reproduced')) return EXIT.unknown;
  return EXIT.ok;
}

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('demo', USAGE, argv, { out: { type: 'string' }, all: { type: 'boolean' }, json: { type: 'boolean' }, lang: { type: 'string' } }, true);
  if (typeof parsed === 'number') return parsed;
  const { values: args, positionals } = parsed;
  if (!args.all && positionals.length === 0) {
    console.log(`lockpick demo: ${DEMOS.length} entries (expected verdict, what it shows); run one with 'lockpick demo NAME', all with 'lockpick demo --all --out DIR'\n${list()}`);
    return EXIT.ok;
  }
  const lang = langOption(args.lang) ?? 'en';
  if (args.all && positionals.length) throw new UsageError(`give either --all or entry names, not both (got --all and ${positionals.join(' ')})`);
  const entries: DemoEntry[] = [];
  for (const name of args.all ? DEMOS.map((d) => d.name) : positionals) {
    const d = findDemo(name);
    if (!d) throw new UsageError(`no demo named '${name}'; the catalogue:\n${list()}`);
    if (!entries.includes(d)) entries.push(d);
  }
  const out = args.out ?? join('store', 'demo');
  try {
    makeDir(out);
  } catch (e) {
    throw new UsageError(`--out ${out}: cannot create the directory: ${fsReason(e)}\n  fix: give --out a directory that can be written (it is created if missing)`);
  }
  const json = args.json === true;
  const log = (line: string) => (json ? console.error(line) : console.log(line));
  const t0 = Date.now();
  const outcomes: DemoOutcome[] = [];
  const writeIndex = () => {
    const fix = 'give --out a directory that can be written';
    writeOutput(join(out, 'index.json'), `${JSON.stringify({ elapsed_ms: Date.now() - t0, exit_code: demoExitCode(outcomes), demos: outcomes }, null, 2)}\n`, { fix });
    writeOutput(join(out, 'index.html'), renderIndex(outcomes, Date.now() - t0, lang), { fix });
  };
  for (const [i, entry] of entries.entries()) {
    log(`[${i + 1}/${entries.length}] ${entry.name} (expected ${entry.expected}): ${entry.title}`);
    const o = await runDemo(entry, { out, log, lang, interrupts: { exitOnSignal: true } });
    outcomes.push(o);
    log(`  ${o.verdict}, ${o.status} (${o.runs} run(s), ${(o.elapsedMs / 1000).toFixed(1)} s): ${o.page}`);
    writeIndex();   // after every entry, so an interrupted --all still has an index of what ran
  }
  const code = demoExitCode(outcomes);
  const bad = outcomes.filter((o) => o.status !== 'as expected');
  log(`\n${outcomes.length - bad.length} of ${outcomes.length} as expected in ${((Date.now() - t0) / 1000).toFixed(0)} s; index: ${join(out, 'index.html')}`);
  for (const o of bad) log(`  ${o.name}: ${o.status} (expected ${o.expected}, got ${o.verdict}${o.error ? `: ${o.error}` : ''})`);
  if (json) console.log(JSON.stringify({ exitCode: code, outcomes }));
  return code;
}
