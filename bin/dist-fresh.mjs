// Whether dist/ (the prebuilt JavaScript) was compiled from exactly the sources beside it, so
// `lockpick check` may run it without starting tsx (~0.3 s saved per call). Decided by content:
// `npm run build` stores a hash of every source it compiled (src/, checkers/, nemesis/; the
// tsconfig files where they exist) in dist/.source-hash, taken before compiling, and beside it
// (dist/.source-stat) each source's size and modification time (ns) as the hash saw them. A start
// first compares those (one stat a file, no reading): when every one is as it was, the stored
// hash is the sources'; otherwise it hashes the sources again (about 10 ms) and any difference,
// or no stamp, means the sources are run through tsx as always. A stale dist is never used (only
// a source changed without changing its size or its modification time to the nanosecond could).
// A start that hashed the sources and found them as compiled keeps what it saw (VERIFIED below),
// so an installed package, whose files npm dated anew, hashes them once, not at every start.
//   node bin/dist-fresh.mjs --hash    prints the hash of the sources now (the build script stores it)
//   node bin/dist-fresh.mjs --stat    prints the sizes and times of the sources now (stored beside it)
//   node bin/dist-fresh.mjs --fresh   exits 0 when dist/ is fresh, 1 when not (prepack builds only then)
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIRS = ['src', 'checkers', 'nemesis'];
const FILES = ['tsconfig.json', 'tsconfig.build.json'];

/** The files under root/rel (paths relative to root, '/'-separated, as every start compares them: no path module calls). */
function listFiles(root, rel, out) {
  let entries;
  try { entries = readdirSync(`${root}/${rel}`, { withFileTypes: true }); } catch { return; }
  for (const e of entries) {
    // Dot entries are no sources: tsc's globs skip them too (bench:mutants writes its mutant
    // recipes, briefly, to src/locks/.mutants/ while other lockpick processes start).
    if (e.name.startsWith('.')) continue;
    const p = `${rel}/${e.name}`;
    if (e.isDirectory()) listFiles(root, p, out);
    else out.push(p);
  }
}

// node:crypto is loaded only when the sources are hashed: loading it is a few ms of every start.
const require = createRequire(import.meta.url);

function hashFiles(root, files) {
  const h = require('node:crypto').createHash('sha256');
  for (const f of files.sort()) {
    h.update(f);
    h.update('\0');
    try { h.update(readFileSync(`${root}/${f}`)); } catch { h.update('\u0001missing'); }
    h.update('\0');
  }
  return h.digest('hex');
}

/**
 * The stamp of the sources dist/ is compiled from: a hash of the sources' paths and contents,
 * and one of the tsconfig files. The npm package ships no tsconfig (nothing is compiled there),
 * so those count only where they exist.
 */
export function sourceHash(root = ROOT) {
  const files = [];
  for (const d of DIRS) listFiles(root, d, files);
  return `${hashFiles(root, files)} ${hashFiles(root, FILES.slice())}`;
}

/** Each source's path, size and modification time (ns), one a line, in path order (the tsconfig files where they exist). */
export function sourceStat(root = ROOT) {
  const files = [];
  for (const d of DIRS) listFiles(root, d, files);
  for (const f of FILES) if (existsSync(`${root}/${f}`)) files.push(f);
  return files.sort().map((f) => {
    // A file gone since it was listed (deleted meanwhile) differs from the stamp: the hash decides.
    let st;
    try { st = statSync(`${root}/${f}`, { bigint: true, throwIfNoEntry: false }); } catch { st = undefined; }
    return st === undefined ? `${f} missing` : `${f} ${st.size} ${st.mtimeNs}`;
  }).join('\n');
}

/**
 * Where a start that hashed the sources and found them as compiled keeps the sizes and times it saw,
 * under the stamp it checked them against: an installed package's files carry the times npm gave
 * them, not the build's, and without it every start would hash every source again (30–50 ms, and
 * ten times that from a cold disk). Written when it can be (a read-only install just hashes).
 */
const VERIFIED = '.source-stat-verified';

const read = (file) => { try { return readFileSync(file, 'utf8'); } catch { return undefined; } };

/** True only when dist/.source-hash matches the sources as they are now. */
export function distFresh(root = ROOT) {
  const stampText = read(path.join(root, 'dist', '.source-hash'))?.trim();
  if (stampText === undefined) return false;
  const stamp = stampText.split(' ');
  if (stamp.length !== 2) return false;
  // Every source as the build saw it (or as a start that hashed them saw it, under this same stamp): its hash is the one stored.
  const now = sourceStat(root);
  if (read(path.join(root, 'dist', '.source-stat')) === now) return true;
  const verified = `${stampText}\n${now}`;
  if (read(path.join(root, 'dist', VERIFIED)) === verified) return true;
  const [sources, config] = sourceHash(root).split(' ');
  const configShipped = FILES.some((f) => existsSync(path.join(root, f)));
  const fresh = stamp[0] === sources && (!configShipped || stamp[1] === config);
  if (fresh) {
    try { writeFileSync(path.join(root, 'dist', VERIFIED), verified); } catch { /* a read-only install: the next start hashes again */ }
  }
  return fresh;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--hash') process.stdout.write(`${sourceHash()}\n`);
  if (process.argv[2] === '--stat') process.stdout.write(`${sourceStat()}`);
  // --fresh: exit 0 when dist/ is fresh, 1 when not (prepack then builds; a fresh dist is packed as it is).
  if (process.argv[2] === '--fresh') process.exitCode = distFresh() ? 0 : 1;
}
