// What the environment adds to every Node start, said beside a bench's timings. NODE_EXTRA_CA_CERTS
// makes Node read and parse that certificate file at each start, before any of lockpick runs
// (a sandbox or a corporate proxy sets it: ~50 ms of a 2-core VM's start for Debian's bundle);
// a Go or Rust checker measured beside lockpick does not read it.
import { spawnSync } from 'node:child_process';
import { median } from './median.ts';

/** Median wall ms of `node -e 0` over `runs` starts, in env. */
function nodeStartMs(env: NodeJS.ProcessEnv, runs: number): number {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { env, stdio: 'ignore' });
    ms.push(performance.now() - t);
  }
  return median(ms);
}

/** A line saying what NODE_EXTRA_CA_CERTS costs each Node start here, or undefined when it is not set. */
export function extraCaNote(bench: string): string | undefined {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (file === undefined || file === '') return undefined;
  const without = { ...process.env };
  delete without.NODE_EXTRA_CA_CERTS;
  const withIt = nodeStartMs(process.env, 5), withoutIt = nodeStartMs(without, 5);
  return `note: NODE_EXTRA_CA_CERTS is set (${file}): Node reads that file at every start, lockpick's included ` +
    `(\`node -e 0\` here: ${Math.round(withIt)} ms with it, ${Math.round(withoutIt)} ms without, medians of 5). ` +
    `\`env -u NODE_EXTRA_CA_CERTS npm run ${bench} …\` times lockpick as on a machine without it.`;
}
