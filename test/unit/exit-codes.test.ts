// Exit codes are a contract (README "Exit codes"): 0 safe/valid, 1 unsafe/invalid,
// 2 bad input or usage, 3 inconclusive, 4 internal error of lockpick. Every case
// runs the real CLI (`node bin/lockpick.mjs …`) and checks the code and that
// stderr names the problem. None of these start a server (the paths that need
// one are in test/integration/exit-codes.test.ts).
import { tempDir } from '../support/temp-dir.ts';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { doubleHolderEvents } from './report-fixtures.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/lockpick.mjs');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
let dir: string;

interface Result { code: number | null; out: string; err: string }
function lockpick(args: string[], o: { nodeArgs?: string[]; cwd?: string; bin?: string; env?: NodeJS.ProcessEnv } = {}): Result {
  const r = spawnSync(process.execPath, [...(o.nodeArgs ?? []), o.bin ?? bin, ...args], { encoding: 'utf8', cwd: o.cwd ?? dir, timeout: 60_000, env: { ...process.env, ...o.env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
/** The exit code is `code` and stderr matches every pattern (the problem, the place, the fix). */
function expectExit(r: Result, code: number, ...stderr: RegExp[]): void {
  assert.equal(r.code, code, `exit ${r.code}, expected ${code}\nstderr: ${r.err}\nstdout: ${r.out.slice(0, 400)}`);
  for (const re of stderr) assert.match(r.err, re);
  assert.doesNotMatch(r.err, /lockpick: internal error/, 'not an internal error');
}
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  mkdirSync(resolve(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
};

before(() => {
  dir = tempDir('lockpick-exit-');
  // ES modules outside the repository need a package.json saying so (tsx reads .ts as CommonJS otherwise).
  file('locks/package.json', '{"type": "module"}');
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('no command → 2; --help, help → 0; unknown command (also a prototype key) → 2', () => {
  expectExit(lockpick([]), 2, /no command given/, /usage: lockpick <command>/);
  for (const h of ['--help', 'help']) {
    const r = lockpick([h]);
    assert.equal(r.code, 0);
    assert.match(r.out, /4 internal error of lockpick/);
  }
  expectExit(lockpick(['frobnicate']), 2, /unknown command 'frobnicate'/);
  expectExit(lockpick(['toString']), 2, /unknown command 'toString'/);
});

test('lockpick --version and lockpick version print the package version, exit 0', () => {
  for (const v of ['--version', 'version']) {
    const r = lockpick([v]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out.trim(), `lockpick ${version}`);
  }
});

test('every subcommand: --help → 0 and states the exit codes; an unknown flag → 2 naming it', () => {
  for (const cmd of ['check', 'run', 'merge', 'list', 'env', 'proxy', 'report', 'serve']) {
    const h = lockpick([cmd, '--help']);
    assert.equal(h.code, 0, `${cmd} --help: ${h.err}`);
    if (cmd !== 'check') assert.match(h.out, /0 safe\/valid, 1 unsafe\/invalid, 2 bad input or usage, 3 inconclusive[^]*4 internal error/, `${cmd} --help states the exit codes`);
    expectExit(lockpick([cmd, '--no-such-flag']), 2, /Unknown option '--no-such-flag'/);
  }
  // A --format value given as a flag, and a slip of a known option: the fix names what was meant; a far-off name gets no guess.
  expectExit(lockpick(['report', 'x.jsonl', '--json']), 2, /Unknown option '--json'[^\n]*\n {2}fix: did you mean --format json\?/);
  expectExit(lockpick(['run', '--shrink-tim', '3']), 2, /Unknown option '--shrink-tim'[^\n]*\n {2}fix: did you mean --shrink-time\?/);
  const far = lockpick(['report', 'x.jsonl', '--bogus']);
  expectExit(far, 2, /Unknown option '--bogus'/);
  assert.doesNotMatch(far.err, /did you mean/);
});

test('report: unknown or prototype model names, missing and malformed inputs → 2', () => {
  const history = file('h/history.jsonl', doubleHolderEvents().map((e) => JSON.stringify(e)).join('\n') + '\n');
  for (const m of ['toString', 'constructor', '__proto__', 'nope']) {
    expectExit(lockpick(['report', history, '--format', 'text', '--model', m]), 2, new RegExp(`unknown model "${m}"`), /fix: pass --model/);
  }
  // A model named in the run's test.json is checked the same way.
  file('run-proto/history.jsonl', readFileSync(history, 'utf8'));
  file('run-proto/test.json', '{"model": "toString"}');
  expectExit(lockpick(['report', join(dir, 'run-proto'), '--format', 'text']), 2, /unknown model "toString" \(from the run's test\.json/);
  expectExit(lockpick(['report', join(dir, 'missing.jsonl')]), 2, /missing\.jsonl: no such file or directory/, /fix:/);
  expectExit(lockpick(['report', file('bad.jsonl', '{"type": "invoke",\n')]), 2, /bad\.jsonl:1: not-json/, /fix:/);
  mkdirSync(join(dir, 'empty-run'));
  expectExit(lockpick(['report', join(dir, 'empty-run')]), 2, /empty-run: no history\.jsonl/, /fix:/);
  file('run-badtest/history.jsonl', readFileSync(history, 'utf8'));
  file('run-badtest/test.json', '{"lock": ');
  expectExit(lockpick(['report', join(dir, 'run-badtest'), '--format', 'text']), 2, /run-badtest\/test\.json: not readable as JSON/, /fix:/);
  file('run-badresults/history.jsonl', readFileSync(history, 'utf8'));
  file('run-badresults/results.json', '[1,');
  expectExit(lockpick(['report', join(dir, 'run-badresults'), '--format', 'text']), 2, /results\.json: not readable as JSON/);
  expectExit(lockpick(['report', history, '--format', 'pdf']), 2, /unknown --format "pdf"/);
  expectExit(lockpick(['report']), 2, /give exactly one PATH/);
});

test('report --out on a path that cannot be written → 2 with the path and the reason (also as root)', () => {
  const history = file('o/history.jsonl', doubleHolderEvents().map((e) => JSON.stringify(e)).join('\n') + '\n');
  // A path under a regular file fails for root too (chmod 0555 would not stop root).
  const under = join(history, 'timeline.html');
  expectExit(lockpick(['report', history, '--out', under]), 2, new RegExp(`cannot write ${under.replace(/[.]/g, '\\.')}: not a directory \\(ENOTDIR\\)`), /fix: give --out/);
  expectExit(lockpick(['report', history, '--format', 'text', '--out', join(dir, 'no-such-dir', 'x.txt')]), 2, /no-such-dir\/x\.txt: no such file or directory \(ENOENT\)/);
});

test('env: bad options → 2 before anything starts (unknown topology, bad numbers, unknown flags)', () => {
  expectExit(lockpick(['env']), 2, /expected 'up TOPOLOGY' or 'down'/);
  expectExit(lockpick(['env', 'up']), 2, /expected 'up TOPOLOGY' or 'down'/);
  expectExit(lockpick(['env', 'sideways']), 2, /expected 'up TOPOLOGY' or 'down'/);
  expectExit(lockpick(['env', 'up', 'cassandra']), 2, /unknown topology 'cassandra'; use one of: redis/, /fix:/);
  expectExit(lockpick(['env', 'up', 'redis', '--masters', 'three']), 2, /masters must be an integer from 1 to 7, got three/);
  expectExit(lockpick(['env', 'up', 'redis', '--masters', '9']), 2, /masters must be an integer from 1 to 7, got 9/);
  expectExit(lockpick(['env', 'up', 'zookeeper', '--nodes', '2']), 2, /zookeeper nodes must be 1 or 3, got 2/);
  expectExit(lockpick(['env', 'up', 'redis', '--persistence', 'sometimes']), 2, /persistence must be 'none' or 'aof-always'/);
  expectExit(lockpick(['env', 'up', 'redis', '--replicas', '2']), 2, /Unknown option '--replicas'/);
});

test('merge: no dir, a dir that is none or holds no run, a bad --shard → 2', () => {
  expectExit(lockpick(['merge']), 2, /give the shards' run dirs/);
  expectExit(lockpick(['merge', '/nonexistent-lockpick-dir']), 2, /no such directory/);
  expectExit(lockpick(['merge', file('empty/x.txt', '').replace(/\/x\.txt$/, '')]), 2, /holds no run directory/);
  expectExit(lockpick(['run', '--lock', 'redis-set-px-lua', '--shard', '3/2']), 2, /shard 3 of 2 does not exist/);
  // Numbers past any array or hash range: exit 2 naming the bound, not a RangeError stack (exit 4).
  for (const flag of ['1/99999999999999999999', '5000000000/5000000000']) {
    const r = lockpick(['run', '--lock', 'redis-set-px-lua', '--shard', flag]);
    expectExit(r, 2, /--shard N must be at most 1000 \(a shard keeps 1 in N of the plans it draws/);
    assert.doesNotMatch(r.err, /RangeError|\n\s+at /);
  }
  expectExit(lockpick(['run', '--lock', 'redis-set-px-lua', '--shard', 'auto'], { env: { CI_NODE_INDEX: 'two', CI_NODE_TOTAL: '4' } }), 2, /CI_NODE_INDEX \(GitLab\) must be a whole number/);
});

test('proxy: a bad or busy port → 2', () => {
  expectExit(lockpick(['proxy', '--port', 'http']), 2, /--port "http": expected a port number/);
  expectExit(lockpick(['proxy', '--port', '70000']), 2, /--port "70000"/);
});

test('run: unknown lock, bad numbers, unknown fault, missing --lock → 2', () => {
  expectExit(lockpick(['run']), 2, /--lock is required/);
  expectExit(lockpick(['run', '--lock', 'no-such-lock']), 2, /unknown lock "no-such-lock"; known locks: /);
  expectExit(lockpick(['run', '--lock', 'toString']), 2, /unknown lock "toString"/);
  for (const [flag, v] of [['--clients', '0'], ['--clients', '2.5'], ['--time', 'soon'], ['--ttl', '10'], ['--runs', ''], ['--seed', '-1'], ['--keys', '1e400'], ['--max-attempts', '0'], ['--max-faults', 'two']]) {
    expectExit(lockpick(['run', '--lock', 'redis-set-px-lua', `${flag}=${v}`]), 2, v === '' ? new RegExp(`${flag}: empty value`) : new RegExp(`${flag} must be a whole number from \\d+ to \\d+, got '${v!.replace('.', '\\.')}'`));
  }
  expectExit(lockpick(['run', '--lock', 'redis-set-px-lua', '--faults', 'partition,meteor']), 2, /unknown fault 'meteor'; known faults: partition/);
  expectExit(lockpick(['run', '--lock', 'redis-set-px-lua', '--property', 'vibes']), 2, /--property must be lock, resource or both/);
  expectExit(lockpick(['run', '--lock', 'redis-set-px-lua', '--faults', 'partition', '--restart-delay', '1000']), 2, /--restart-delay is an option of the fault kinds kill \(keeps a killed server down that long\), server-term/);
  expectExit(lockpick(['run', '--lock', 'redis-set-px-lua', 'extra']), 2, /Unexpected argument 'extra'/);
});

test('run: a lock module that cannot be loaded → 2 naming the path', () => {
  expectExit(lockpick(['run', '--lock', './locks/missing.ts']), 2, /--lock \/.*\/locks\/missing\.ts: no such file/);
  const syntax = file('locks/syntax.ts', 'export default {\n');
  expectExit(lockpick(['run', '--lock', syntax]), 2, new RegExp(`--lock ${syntax}: the module failed to load`));
  const thrower = file('locks/throws.ts', 'throw new Error("cannot connect at import time");\nexport default {};\n');
  expectExit(lockpick(['run', '--lock', thrower]), 2, /throws\.ts: the module failed to load: cannot connect at import time/);
  const noExport = file('locks/no-export.ts', 'export const helper = 1;\n');
  expectExit(lockpick(['run', '--lock', noExport]), 2, /no-export\.ts: the module exports neither a default nor `recipe`/);
  const wrong = file('locks/wrong.ts', 'export default { name: "w" };\n');
  expectExit(lockpick(['run', '--lock', wrong]), 2, /wrong\.ts: the default export \(module\.exports in CommonJS\) is not a LockRecipe[^]*missing or wrong:[^]*create\(ctx\)/);
});

test('run --store that is a regular file → 2 with the path and the reason, before any server starts', () => {
  const f = file('store-file', 'not a directory\n');
  expectExit(lockpick(['run', '--lock', 'redis-set-px-lua', '--store', f]), 2, new RegExp(`--store ${f}: cannot create the run directory ${f}/[^:]+: ${f} is a file where a directory is needed \\(ENOTDIR\\)`), /fix: give --store a directory/);
});

test('run --junit in a directory that cannot be written → 2 naming the real cause, before any server starts', () => {
  const f = file('junit-parent-file', 'not a directory\n');
  expectExit(lockpick(['run', '--lock', 'redis-set-px-lua', '--junit', join(dir, 'no-such-dir', 'j.xml')]), 2, /--junit \S+: the directory \S+no-such-dir cannot be written: no such file or directory \(ENOENT\)/, /fix: create it/);
  expectExit(lockpick(['run', '--lock', 'redis-set-px-lua', '--junit', join(f, 'j.xml')]), 2, /cannot be written: .*\(ENOTDIR\)/);
});

test('run --replay of a missing directory, a missing or malformed test.json → 2 naming the file', () => {
  const plan = { ttlMs: 800, clients: [{ attempts: [{ key: 'k0', delayMs: 0, waitMs: 100, holdMs: 10, renew: false }] }], faults: [] };
  expectExit(lockpick(['run', '--replay', join(dir, 'nowhere')]), 2, /--replay .*nowhere: no such directory/, /fix:/);
  expectExit(lockpick(['run', '--replay', file('replay-file', 'x')]), 2, /replay-file: not a directory/);
  mkdirSync(join(dir, 'r-empty'));
  expectExit(lockpick(['run', '--replay', join(dir, 'r-empty')]), 2, /cannot read .*r-empty\/test\.json: no such file or directory \(ENOENT\)/);
  const cases: [string, string, RegExp][] = [
    ['r-json', '{"plan": ', /r-json\/test\.json: not valid JSON/],
    ['r-array', '[]', /r-array\/test\.json: not a JSON object/],
    ['r-null-plan', JSON.stringify({ lock_spec: { name: 'redis-set-px-lua' }, plan: null }), /r-null-plan\/test\.json: "plan" is null \(that run found no violation/],
    ['r-bad-plan', JSON.stringify({ lock_spec: { name: 'redis-set-px-lua' }, plan: { ttlMs: 800, clients: [] } }), /r-bad-plan\/test\.json: plan\.clients: "clients" must be a non-empty array/],
    ['r-no-spec', JSON.stringify({ plan }), /r-no-spec\/test\.json: "lock_spec" is missing or wrong/],
    ['r-gone-lock', JSON.stringify({ lock_spec: { name: 'retired-lock' }, plan }), /unknown lock "retired-lock"/],
  ];
  for (const [name, text, re] of cases) {
    file(`${name}/test.json`, text);
    expectExit(lockpick(['run', '--replay', join(dir, name)]), 2, re);
  }
});

/** A module for `node --import` that breaks something inside lockpick the way a bug would. */
function preload(name: string, code: string): string[] {
  return ['--import', pathToFileURL(file(`preload/${name}.mjs`, code)).href];
}

test('a bug inside a command → 4 with the stack, never 1 or 3', () => {
  // mkdirSync throwing a TypeError for one path stands for any bug in lockpick's own code.
  const bug = preload('mkdir-bug', `import fs from 'node:fs'; import { syncBuiltinESMExports } from 'node:module';
    const real = fs.mkdirSync;
    fs.mkdirSync = (p, ...rest) => { if (String(p).includes('injected-bug')) throw new TypeError('injected bug in lockpick'); return real(p, ...rest); };
    syncBuiltinESMExports();`);
  const r = lockpick(['run', '--lock', 'redis-set-px-lua', '--store', join(dir, 'injected-bug')], { nodeArgs: bug });
  assert.equal(r.code, 4, r.err);
  assert.match(r.err, /^lockpick: internal error \(a bug in lockpick, please report it\): TypeError: injected bug in lockpick\n\s+at /);
});

test('an uncaught exception or unhandled rejection in the CLI process → 4 with the message', () => {
  // `proxy --port 0` stays up, so the timer fires while the command runs.
  const thrown = lockpick(['proxy', '--port', '0'], { nodeArgs: preload('throw', 'setTimeout(() => { throw new Error("injected uncaught"); }, 1500);') });
  assert.equal(thrown.code, 4, thrown.err);
  assert.match(thrown.err, /lockpick: internal error \(a bug in lockpick, please report it\): Error: injected uncaught/);
  const rejected = lockpick(['proxy', '--port', '0'], { nodeArgs: preload('reject', 'setTimeout(() => { Promise.reject(new Error("injected rejection")); }, 1500);') });
  assert.equal(rejected.code, 4, rejected.err);
  assert.match(rejected.err, /internal error \(a bug in lockpick, please report it\): Error: injected rejection/);
});

test('lockpick that fails to load → 4', () => {
  // A copy of bin/ next to a src/cli.ts that throws on import: a broken install or a bug at load time.
  const copy = join(dir, 'broken-install');
  cpSync(join(root, 'bin'), join(copy, 'bin'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  file('broken-install/src/cli.ts', 'throw new SyntaxError("injected load failure");\n');
  const r = lockpick(['list'], { bin: join(copy, 'bin/lockpick.mjs') });
  assert.equal(r.code, 4, r.err);
  assert.match(r.err, /lockpick: internal error \(a bug in lockpick, please report it\): SyntaxError: injected load failure/);
});

test('stdout closed early (| head -1): no EPIPE stack, the exit code is the verdict', () => {
  const pipe = (args: string[]) => {
    const r = spawnSync('bash', ['-c', `"$0" "$1" "\${@:2}" 2>"${dir}/pipe-err" | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"`, process.execPath, bin, ...args], { encoding: 'utf8', cwd: dir });
    return { code: Number(r.stdout.trim()), err: readFileSync(join(dir, 'pipe-err'), 'utf8') };
  };
  const list = pipe(['list']);
  assert.deepEqual(list, { code: 0, err: '' });
  // 400 results (~160 KB) overflow the pipe, so writes after head exits do fail with EPIPE.
  const invalid = join(root, 'histories/double-holder.jsonl');
  const check = pipe(['check', ...Array<string>(400).fill(invalid)]);
  assert.equal(check.code, 1, check.err);
  assert.doesNotMatch(check.err, /EPIPE|Error/);
});

test('values at the edge, on the command line: empty, repeated, out of range, unknown → 2 before anything starts', () => {
  const run = (...a: string[]) => lockpick(['run', '--lock', 'redis-set-px-lua', ...a]);
  expectExit(run('--faults', ''), 2, /--faults: empty value/);
  expectExit(run('--store', ''), 2, /--store: empty value/);
  expectExit(run('--time', '5', '--time', '6'), 2, /--time is given twice/);
  expectExit(run('--lock-opt', 'retryMs=-5'), 2, /--lock-opt retryMs=-5: lock redis-set-px-lua takes a number from 0 to 3600000/);
  expectExit(run('--lock-opt', 'retyMs=5'), 2, /lock redis-set-px-lua has no option 'retyMs'; its options: retryMs/);
  expectExit(run('--ttl', '3600000'), 2, /--ttl 3600000 ms does not fit in --time \(60 s\)/);
  expectExit(lockpick(['version', '--frobnicate']), 2, /Unknown option '--frobnicate'/);
});
