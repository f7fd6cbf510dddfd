// `lockpick merge DIR…`: the shards of one search (lockpick run --shard I/N) as one verdict.
import { parseCommandArgs } from './args.ts';
import { EXIT_HELP, UsageError } from '../errors.ts';
import { writablePath } from '../options.ts';

const USAGE = `usage: lockpick merge DIR... [--out DIR] [--json] [--junit PATH]

Merges the run dirs of the shards of one search (lockpick run --shard I/N), each
a run dir or a folder holding them (a store, or a CI job's downloaded artifacts),
into one verdict: UNSAFE if any shard found a violation; SAFE only if shards 1..N
are all there, each SAFE (or short only of fault kinds: each shard leads its share
of the kinds), and their coverage summed has every requested fault kind applied,
holds released and contention; otherwise INCONCLUSIVE naming the shards.
Distinct failures are listed once each (by their class, as each shard named it:
a bug of this lock first, then what is inherent to its design), with their
counterexample, timeline and replay command.

options:
  --out DIR      where results.json, junit.xml (one test case per distinct failure)
                 and index.html (linking every timeline) go (default ./merged); created
                 now; not an input DIR nor inside a shard's run dir
  --junit PATH   also write the junit.xml to PATH
  --json         print the merged results.json on stdout

${EXIT_HELP}
  2 here: no run dir found, a run that is not a shard, one shard twice, shards of
    different searches (the field that differs is named), or an --out or --junit that
    is an input or inside a shard's run dir, or cannot be written (said before any read)`;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('merge', USAGE, argv, { out: { type: 'string' }, json: { type: 'boolean' }, junit: { type: 'string' } }, true);
  if (typeof parsed === 'number') return parsed;
  const { values: args, positionals } = parsed;
  try {
    if (positionals.length === 0) throw new UsageError('give the shards\' run dirs (or the folders they were downloaded to): lockpick merge DIR...');
    const junit = args.junit === undefined ? undefined : writablePath(args.junit, '--junit');
    const { mergeRuns } = await import('../api.ts');
    const m = await mergeRuns(positionals, { out: args.out ?? 'merged', junit });
    const { describeMerge } = await import('../report/merge-report.ts');
    if (args.json) { console.error(describeMerge(m)); console.log(JSON.stringify(m)); }
    else console.log(`${describeMerge(m)}\nmerged: ${args.out ?? 'merged'}/index.html, results.json, junit.xml`);
    return m.exitCode;
  } catch (e) {
    if (e instanceof UsageError) { console.error(`lockpick merge: ${e.message}`); return e.exitCode; }
    throw e;
  }
}
