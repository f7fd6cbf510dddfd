// The code examples of README.md and docs/*.md that are whole files (a ```ts or ```js block whose
// first line names the file, e.g. `// lock.test.mjs`) compile against the
// package's own types, as a user's editor and `tsc` see them: lockpick's
// declarations are emitted as `npm run build` emits them, into a temp project's
// node_modules/lockpick; each example is checked as written (checkJs, strict)
// and, for an ES module in JavaScript, once more as TypeScript (a user who
// copies it into a .ts file). `result.minimal` after `assert.equal(result.verdict, false)` must be
// defined and its anomalies typed: that is what this guards.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

interface Example { file: string; code: string; line: number; doc?: string }

/** A document's file examples: fenced ts/js blocks whose first line is `// NAME.ext ...`. */
export function fileExamples(readme: string, doc?: string): Example[] {
  const out: Example[] = [];
  const re = /^```(?:ts|js)\n(\/\/ ([\w.-]+\.(?:ts|mts|cts|js|mjs|cjs))\b[^\n]*\n[\s\S]*?)^```$/gm;
  for (let m = re.exec(readme); m; m = re.exec(readme)) {
    out.push({ file: m[2]!, code: m[1]!, line: readme.slice(0, m.index).split('\n').length + 1, doc });
  }
  return out;
}

/** The file examples of the README and of the docs it links (docs/*.md; the library example lives in docs/library.md). */
function docExamples(): Example[] {
  const docs = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
  return docs.flatMap((d) => fileExamples(readFileSync(path.join(root, d), 'utf8'), d));
}

/** An ES module example as the TypeScript file a user would copy it into (a CommonJS one is typed by JSDoc, which .ts files do not read). */
const asTypeScript = (file: string) => file.replace(/\.mjs$/, '.copy.mts');

function tsc(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSC, ...args], { cwd, timeout: 240_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: `${stdout}${stderr}` }));
  });
}

test('README and docs: the examples that are files find each other', () => {
  const files = docExamples().map((e) => e.file);
  assert.ok(files.includes('lock.test.mjs'), `the library example is among them: ${files.join(', ')}`);
  assert.ok(files.includes('my-lock.js'), files.join(', '));
});

test('README and docs: every file example typechecks against the package types (strict; an .mjs one also as TypeScript)', { timeout: 300_000 }, async () => {
  const examples = docExamples();
  const dir = tempDir('lockpick-readme-ts-');
  try {
    // The user's project: its dependencies (ioredis, @types/node) as installed beside lockpick, and lockpick's declarations.
    const nm = path.join(dir, 'node_modules');
    mkdirSync(nm);
    for (const name of readdirSync(path.join(root, 'node_modules'))) {
      if (!name.startsWith('.')) symlinkSync(path.join(root, 'node_modules', name), path.join(nm, name));
    }
    const pkg = path.join(nm, 'lockpick');
    mkdirSync(pkg);
    copyFileSync(path.join(root, 'package.json'), path.join(pkg, 'package.json'));
    const emit = await tsc(['-p', path.join(root, 'tsconfig.build.json'), '--emitDeclarationOnly', '--outDir', path.join(pkg, 'dist')], root);
    assert.equal(emit.code, 0, `emitting lockpick's declarations failed:\n${emit.out}`);
    writeFileSync(path.join(pkg, 'dist', 'index.d.cts'), "export * from './src/index.js';\n");   // as the build script writes it

    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'user-project', type: 'commonjs' }));
    const files: string[] = [];
    for (const e of examples) {
      writeFileSync(path.join(dir, e.file), e.code);
      files.push(e.file);
      if (e.file.endsWith('.mjs')) {
        writeFileSync(path.join(dir, asTypeScript(e.file)), e.code);
        files.push(asTypeScript(e.file));
      }
    }
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true,
        allowJs: true, checkJs: true, skipLibCheck: true, types: ['node'],
      },
      files,
    }));
    const r = await tsc(['-p', 'tsconfig.json'], dir);
    const where = examples.map((e) => `${e.file}: ${e.doc} line ${e.line}`).join('; ');
    assert.equal(r.code, 0, `README examples do not typecheck (${where}):\n${r.out}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
