// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// lockpick as a user meets it: `npm pack` this repository, install the tarball
// into a fresh `npm init -y` project (CommonJS, as npm creates it) on a machine
// without a C or C++ compiler (no-compiler.ts: a mount namespace where they are
// absent), and run `npx lockpick run` there on the user's own lock, once as
// TypeScript that imports lockpick's types from 'lockpick', once as a CommonJS .js
// module. One install serves every test (the ones that need no compiler-less
// machine run beside it, where the clock shim can be built). Needs the npm
// registry (the install fetches ioredis etc.) and redis-server.
import { tempDir } from '../support/temp-dir.ts';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, runDirs } from './run-helpers.ts';
import { shimCacheDir } from '../../src/env/clock-shim.ts';
import { noCompiler, type NoCompiler } from './no-compiler.ts';

const dir = tempDir('lockpick-package-');   // holds the tarball and the project
const project = path.join(dir, 'project');
let tarball: string;
let installLog: string;

// Root's shim cache is /var/cache/lockpick whatever XDG_CACHE_HOME says: it must look empty there.
const rootShimCache = process.getuid?.() === 0 ? path.dirname(shimCacheDir(repoRoot, process.env, 0)) : undefined;
if (rootShimCache) mkdirSync(rootShimCache, { recursive: true, mode: 0o755 });
/** The machine without a compiler the install and the slim runs use (decided now: the test's name says which). */
const slim: NoCompiler = noCompiler(path.join(dir, 'slim'), rootShimCache ? [rootShimCache] : []);
console.log(`# no compiler: ${slim.says}`);

function sh(cmd: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, timeout: timeoutMs, maxBuffer: 64 << 20, env: { ...env, npm_config_update_notifier: 'false' } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
}

before(async () => {
  const pack = await sh('npm', ['pack', '--pack-destination', dir], repoRoot, 120_000);   // prepack builds dist/
  assert.equal(pack.code, 0, `npm pack failed:\n${pack.stderr}`);
  tarball = path.join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!);
  mkdirSync(project);
  const init = await sh('npm', ['init', '-y'], project, 30_000);
  assert.equal(init.code, 0, init.stderr);
  // As a user types it: the optional dependencies are tried (the zookeeper addon's build fails here).
  const install = await sh(...slim.wrap('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel', 'verbose', tarball]), project, 150_000, slim.env);
  installLog = install.stderr;
  assert.equal(install.code, 0, `npm install of the tarball without a compiler failed:\n${install.stderr.slice(-5000)}`);
});

after(() => { rmSync(dir, { recursive: true, force: true }); });

test('the tarball ships what users need and no tests, bench, CI or evidence', () => {
  const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
  for (const banned of ['test/', 'bench/', '.ci/', 'scenarios/evidence/', 'histories/', 'store/', 'build/', 'node_modules/']) {
    assert.deepEqual(files.filter((f) => f.startsWith(banned)), [], `${banned} must not be packed`);
  }
  for (const needed of ['bin/lockpick.mjs', 'src/cli.ts', 'src/runner/worker.ts', 'dist/src/index.js', 'dist/src/index.d.ts',
    'dist/index.d.cts', 'dist/.source-hash', 'dist/src/cli.js', 'dist/src/runner/worker.js', 'dist/src/proxy/server-main.js', 'scenarios/set-px-del-pause/test.json', 'native/clockshim.c', 'examples/my-lock.ts', 'README.md', 'docs/writing-a-lock.md', 'docs/library.md', 'package.json']) {
    assert.ok(files.includes(needed), `${needed} must be packed`);
  }
  const kB = statSync(tarball).size / 1000;
  console.log(`# tarball ${path.basename(tarball)}: ${kB.toFixed(1)} kB, ${files.length} files`);
  // A guard against packing something by mistake (a store, a build, evidence): the sources and their
  // compiled dist/ were 1003 kB on 2026-11-27, with process clients, shards and the proxy's framers;
  // about 1330 kB on 2026-11-29 with serve, its English and Chinese catalogue, semaphores and NATS
  // (the docs' screenshots stay out: they are for readers of the repository).
  assert.ok(kB < 1600, `the tarball is ${kB} kB`);
  assert.deepEqual(files.filter((f) => f.endsWith('.png')), [], 'no screenshots in the package');
});

test('npx lockpick --version, and the library from CommonJS and ESM', async () => {
  const v = await sh('npx', ['lockpick', '--version'], project, 30_000);
  const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  assert.equal(v.code, 0, v.stderr);
  assert.equal(v.stdout.trim(), `lockpick ${version}`);
  // The project is CommonJS: require() of the package (an ES module; Node ≥ 20.19).
  const cjs = await sh(process.execPath, ['-e', "const l = require('lockpick'); console.log(typeof l.checkHistory, l.isDefiniteFailure(new l.DefiniteFailure('x')), Object.keys(l.MODELS).includes('mutex'))"], project, 30_000);
  assert.equal(cjs.stdout.trim(), 'function true true', cjs.stderr);
  const esm = await sh(process.execPath, ['--input-type=module', '-e', "import { readHistory, LockContractError } from 'lockpick'; console.log(typeof readHistory, new LockContractError('x').lockpickLockContract)"], project, 30_000);
  assert.equal(esm.stdout.trim(), 'function true', esm.stderr);
});

/**
 * The unsafe recipe (src/locks/set-px-del.ts: SET NX PX, unlocked by a plain DEL) as a user writes
 * it: TypeScript that imports lockpick's types, or a CommonJS module that requires ioredis and
 * lockpick (its unlock refuses to run unconnected with lockpick's DefiniteFailure).
 */
function myLock(lang: 'ts' | 'cjs'): string {
  const ts = lang === 'ts';
  const type = (annotation: string) => (ts ? annotation : '');   // left out of the .js
  const name = ts ? 'my-lock' : 'my-lock-cjs';
  return `${ts ? "import type { LockRecipe, Lock, Held, LockContext } from 'lockpick';\nimport { Redis } from 'ioredis';"
    : "const { Redis } = require('ioredis');\nconst { DefiniteFailure } = require('lockpick');"}

async function create(ctx${type(': LockContext')})${type(': Promise<Lock>')} {
  const ep = ctx.endpoints[0];
${ts ? "  if (!ep) throw new Error('my-lock: needs one Redis endpoint');\n" : ''}\
  const redis = new Redis({ host: ep.host, port: ep.port, commandTimeout: ctx.commandTimeoutMs,
    maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false, lazyConnect: true });
  redis.on('error', () => {});
  await redis.connect();
  return {
    name: '${name}',
    async acquire(key, { ttlMs, waitMs })${type(': Promise<Held | null>')} {
      const start = ctx.clock.monoMs();
      for (;;) {
        if ((await redis.set(key, ctx.clientId, 'PX', ttlMs, 'NX')) === 'OK') return { key };
        if (ctx.clock.monoMs() - start >= waitMs) return null;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async release(h) {
${ts ? '' : "      if (redis.status !== 'ready') throw new DefiniteFailure('not connected: DEL not sent');\n"}\
      await redis.del(h.key);${ts ? '   // deletes whoever\'s lock is there' : ''}
      return 'released';
    },
    async close() { redis.disconnect(false); },
  };
}

${ts ? 'const recipe: LockRecipe = {' : 'module.exports = {'}
  name: '${name}', summary: 'SET NX PX, plain DEL unlock${ts ? '' : ' (CommonJS)'}', source: 'package test',
  topology: { kind: 'redis', masters: 1 }, model: 'mutex', fencing: false, create,
};
${ts ? 'export default recipe;\n' : ''}`;
}
const TS_LOCK = myLock('ts');
const JS_LOCK = myLock('cjs');

async function runUnsafe(file: string, body: string): Promise<void> {
  writeFileSync(path.join(project, file), body);
  const store = path.join(project, `store-${file}`);
  const r = await sh('npx', ['lockpick', 'run', '--lock', `./${file}`, '--faults', 'client-pause', '--pause-at', 'in-critical-section',
    '--first-failure', '--time', '60', '--shrink-time', '5', '--store', store], project, 150_000);
  assert.equal(r.code, 1, `expected UNSAFE (exit 1), got ${r.code}:\n${r.stdout}\n${r.stderr.slice(-3000)}`);
  assert.match(r.stdout, /UNSAFE: .*my-lock/);
  assert.match(r.stdout, /Minimal schedule/);
  const runs = runDirs(store).filter((d) => existsSync(path.join(d, 'counterexample', 'history.jsonl')));
  assert.ok(runs[0]!.startsWith(path.join(store, file.replace(/\.[jt]s$/, ''))), `store/<lock>/<run-id>: ${runs[0]}`);
  assert.match(readFileSync(path.join(runs[0]!, 'lockpick.log'), 'utf8'), /Minimal schedule/, 'the run log holds what the run printed');
  assert.equal(runs.length, 1, `a shrunk counterexample in ${store}`);
}

test('npx lockpick run --lock ./my-lock.ts (TypeScript in a CommonJS project, types from lockpick) finds the double holder', { timeout: 160_000 }, async () => {
  // The installed package has no build/: the clock shim is built into the cache on first need.
  const cached = path.join(shimCacheDir(path.join(project, 'node_modules', 'lockpick')), 'libclockshim.so');
  rmSync(cached, { force: true });
  await runUnsafe('my-lock.ts', TS_LOCK);
  assert.ok(existsSync(cached), `the clock shim was built into ${cached}`);
});

test('npx lockpick run --lock ./my-lock.js (CommonJS, require of ioredis and lockpick) finds the double holder', { timeout: 160_000 }, async () => {
  await runUnsafe('my-lock.js', JS_LOCK);
});

test('the library from the built package (dist/) under plain node: runLockTest forks its workers and proxy from dist and loads the .ts lock', { timeout: 90_000 }, async () => {
  writeFileSync(path.join(project, 'my-lock.ts'), TS_LOCK);
  writeFileSync(path.join(project, 'lib-run.mjs'), [
    "import { runLockTest } from 'lockpick';",
    "const r = await runLockTest({ lock: './my-lock.ts', clients: 3, timeMs: 8_000, store: './store-lib' });",
    'console.log(JSON.stringify({ exitCode: r.exitCode, gaps: r.gaps, ok: r.coverage.okAcquires }));',
  ].join('\n'));
  const r = await sh(process.execPath, ['lib-run.mjs'], project, 80_000);   // no tsx: the package registers it for the lock
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { exitCode: number; gaps: string[]; ok: number };
  assert.equal(out.exitCode, 0, `no faults, so the DEL unlock is safe here; gaps: ${out.gaps.join('; ')}`);
  assert.ok(out.ok > 0);
});

test(`on a machine without a C/C++ compiler (${slim.how === 'path' ? 'simulated by PATH only: no mount namespace' : 'mount namespace: cc, g++ and make absent'}): npm install of the tarball succeeds, the zookeeper addon left out; a Redis lock is SAFE, a catalogue scenario replays; ZooKeeper and Docker without their packages exit 3 with the install line`, { timeout: 120_000 }, async () => {
  const run = (cmd: string, args: string[], timeoutMs = 60_000) => sh(...slim.wrap(cmd, args), project, timeoutMs, slim.env);
  const probe = await run('sh', ['-c', 'command -v cc || command -v gcc || command -v g++ || command -v c++ || command -v make; cc --version'], 30_000);
  assert.equal(probe.stdout, '', `no compiler is found: ${probe.stdout}`);
  assert.notEqual(probe.code, 0, 'cc --version fails');
  // The install (before()) ran the addon's build, which failed, and went on without it.
  assert.match(installLog, /zookeeper@[\d.]+ install \{ code: [1-9]/, 'the zookeeper addon build was tried and failed');
  assert.match(installLog, /reify failed optional dependency \S*node_modules\/zookeeper\n/);
  assert.ok(!existsSync(path.join(project, 'node_modules', 'zookeeper')), 'zookeeper is optional: left out');
  const pkg = JSON.parse(readFileSync(path.join(project, 'node_modules', 'lockpick', 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  for (const p of ['zookeeper', 'testcontainers']) assert.ok(pkg.optionalDependencies?.[p] && !pkg.dependencies?.[p], `${p} is an optional dependency`);
  const fresh = await run(process.execPath, ['--input-type=module', '-e', "import { distFresh } from './node_modules/lockpick/bin/dist-fresh.mjs'; console.log(distFresh())"], 30_000);
  assert.equal(fresh.stdout.trim(), 'true', `the installed dist/ is fresh, so the CLI runs it without tsx: ${fresh.stderr}`);
  // The CLI runs from dist/ (no tsx needed at start); no faults, so no clock shim is needed either.
  if (slim.how === 'path' && rootShimCache) rmSync(path.join(shimCacheDir(path.join(project, 'node_modules', 'lockpick'), slim.env), 'libclockshim.so'), { force: true });
  // 12 s: a loaded machine's first runs may end before its clients have met (SAFE needs contention).
  const safe = await run('npx', ['lockpick', 'run', '--lock', 'redis-set-px-lua', '--first-failure', '--time', '12', '--store', 'store-slim']);
  assert.equal(safe.code, 0, `expected SAFE (exit 0):\n${safe.stdout}\n${safe.stderr.slice(-3000)}`);
  assert.match(safe.stdout, /SAFE so far/);
  assert.match(safe.stderr, /cannot build the clock shim.*no C compiler/s, 'the missing shim is said');
  // The demo pages' "run it yourself": the catalogue's scenarios/NAME is found inside the package.
  const demo = await run('npx', ['lockpick', 'run', '--replay', 'scenarios/set-px-del-pause', '--runs', '2', '--store', 'store-slim']);
  assert.equal(demo.code, 1, `expected the double holder (exit 1):\n${demo.stdout}\n${demo.stderr.slice(-3000)}`);
  const zk = await run('npx', ['lockpick', 'run', '--lock', 'zk-ephemeral', '--first-failure', '--time', '3', '--store', 'store-slim']);
  assert.equal(zk.code, 3, `expected exit 3 (no test possible):\n${zk.stdout}\n${zk.stderr}`);
  assert.match(zk.stderr, /the optional package 'zookeeper' is not installed.*`npm install zookeeper`/);
  // testcontainers is plain JavaScript, so it did install; without it (npm install --omit=optional leaves it out) --env docker says the line.
  rmSync(path.join(project, 'node_modules', 'testcontainers'), { recursive: true, force: true });
  const docker = await run('npx', ['lockpick', 'run', '--lock', 'redis-set-px-lua', '--env', 'docker', '--first-failure', '--time', '3', '--store', 'store-slim']);
  assert.equal(docker.code, 3, `expected exit 3:\n${docker.stdout}\n${docker.stderr}`);
  assert.match(docker.stderr, /`npm install testcontainers`/);
});
