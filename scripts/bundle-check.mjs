// Build step after tsc (`npm run build`): `lockpick check` loads a few files, not ~50. The module
// graph of dist/src/commands/check.js is bundled in place with esbuild, what it loads on use
// (import(): the topology registry, EDN, the reader thread) split into chunks beside it, so a
// check's start-up skips ~50 module resolutions, reads and links (docs/benchmarks.md "Start-up").
// Only `lockpick check` loads this file (src/cli.ts), so each of its modules is loaded once:
// - the modules the CLI has loaded before it (src/cli.js's static graph) stay files of their own
//   (one module, one state, one class for instanceof), and so do packages;
// - a bundled module's `import.meta.url` still names its own file in dist/ (a worker started
//   beside it, a path relative to it).
// Usage: node scripts/bundle-check.mjs [DIST_DIR]   (default: dist)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const entry = path.join(dist, 'src', 'commands', 'check.js');
const outDir = path.dirname(entry);

/** The lockpick modules `file` loads as it is imported (static imports followed; import() and packages not). */
async function staticGraph(file) {
  const r = await esbuild.build({
    entryPoints: [file], absWorkingDir: root, bundle: true, write: false, metafile: true, format: 'esm', platform: 'node', logLevel: 'silent', packages: 'external',
    plugins: [{ name: 'static-only', setup(b) { b.onResolve({ filter: /^\./ }, (a) => (a.kind === 'dynamic-import' ? { path: a.path, external: true } : undefined)); } }],
  });
  return new Set(Object.keys(r.metafile.inputs).map((p) => path.resolve(root, p)));
}

const loadedBefore = await staticGraph(path.join(dist, 'src', 'cli.js'));
const relFromOut = (abs) => { const r = path.relative(outDir, abs).split(path.sep).join('/'); return r.startsWith('.') ? r : `./${r}`; };

const result = await esbuild.build({
  entryPoints: [entry], outdir: outDir, entryNames: '[name]', chunkNames: 'check-chunk-[hash]', splitting: true,
  bundle: true, format: 'esm', platform: 'node', target: 'node20', allowOverwrite: true, logLevel: 'warning', packages: 'external', metafile: true,
  plugins: [{
    name: 'lockpick-check', setup(b) {
      b.onResolve({ filter: /^\./ }, (a) => {
        const abs = path.resolve(a.resolveDir, a.path);
        return loadedBefore.has(abs) ? { path: relFromOut(abs), external: true } : undefined;
      });
      b.onLoad({ filter: /\.js$/ }, (a) => {
        if (a.path === entry) return undefined;
        const text = readFileSync(a.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(relFromOut(a.path))}, import.meta.url).href`), loader: 'js' };
      });
    },
  }],
});
const files = Object.keys(result.metafile.outputs).length;
const joined = Object.keys(result.metafile.inputs).length;
process.stdout.write(`bundle-check: ${joined} modules of lockpick check in ${files} file(s) in ${path.relative(root, outDir)}\n`);
