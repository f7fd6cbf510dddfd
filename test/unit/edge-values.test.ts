// Values at the edge, property-based: every flag of every command, the library API, --lock-opt
// and the proxy's toxics refuse empty, negative, NaN, huge, repeated and unknown values with
// exit 2 (a UsageError, or the proxy's 400) and take the values in range.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseCommandArgs } from '../../src/commands/args.ts';
import { checkLockOptions, int, MAX_INT, MAX_LOCK_OPTION, MAX_MS, parseLockOptions, positiveInt, ttlWithinTime } from '../../src/options.ts';
import { exitCodeOf } from '../../src/errors.ts';
import { ApiError, MAX_TIMER_MS, parseToxic } from '../../src/proxy/toxics.ts';
import { runLockTest } from '../../src/api.ts';
import { RECIPES } from '../../src/locks/registry.ts';

const exit = (f: () => unknown): number | undefined => {
  try { f(); return 0; } catch (e) { return exitCodeOf(e) ?? (e instanceof ApiError ? e.status : -1); }
};
const quiet = <T>(f: () => T): T => {
  const [log, err] = [console.log, console.error];
  console.log = console.error = () => {};
  try { return f(); } finally { console.log = log; console.error = err; }
};

/** Text that is no whole number in range: empty, blank, negative, fractional, NaN, Infinity, huge, words. */
const badNumber = (min: number, max: number) => fc.oneof(
  fc.constantFrom('', ' ', 'NaN', 'Infinity', '-Infinity', '1e400', '0x10', '1.5', 'two', '--1', '١'),
  fc.integer({ min: -1e9, max: min - 1 }).map(String),
  fc.bigInt({ min: BigInt(max) + 1n, max: 10n ** 30n }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)).map(String),
);

test('int: every whole-number flag refuses what is no whole number in its range, and takes what is', () => {
  const ranges: Array<[string, number, number]> = [['--clients', 1, MAX_INT], ['--time', 1, 604_800], ['--ttl', 50, MAX_MS], ['--seed', 0, MAX_INT], ['--restart-delay', 0, MAX_MS], ['--shrink-time', 0, 604_800]];
  for (const [flag, min, max] of ranges) {
    fc.assert(fc.property(badNumber(min, max), (v) => exit(() => int(v, flag, 1, min, max)) === 2));
    fc.assert(fc.property(fc.integer({ min, max }), (n) => int(String(n), flag, 1, min, max) === n));
  }
  fc.assert(fc.property(fc.oneof(fc.double(), fc.integer({ min: -1e9, max: 0 }), fc.constant(2 ** 53)), (v) =>
    exit(() => positiveInt(v, 'x', 1, 1, MAX_INT)) === (Number.isSafeInteger(v) && v >= 1 && v <= MAX_INT ? 0 : 2)));
});

test('every command: an empty value of any string option, an option twice, an unknown option → exit 2', () => {
  const options = { store: { type: 'string' }, faults: { type: 'string' }, json: { type: 'boolean' }, 'lock-opt': { type: 'string', multiple: true } } as const;
  const name = fc.constantFrom('store', 'faults');
  fc.assert(fc.property(name, fc.constantFrom('', ' ', '\t', '  \n'), fc.boolean(), (n, v, eq) =>
    quiet(() => parseCommandArgs('run', 'usage', eq ? [`--${n}=${v}`] : [`--${n}`, v], options)) === 2));
  fc.assert(fc.property(name, fc.string({ minLength: 1 }).filter((s) => s.trim() !== '' && !s.startsWith('-')), fc.string({ minLength: 1 }).filter((s) => s.trim() !== '' && !s.startsWith('-')), (n, a, b) =>
    quiet(() => parseCommandArgs('run', 'usage', [`--${n}`, a, `--${n}`, b], options)) === 2));
  fc.assert(fc.property(fc.stringMatching(/^[a-z][a-z-]{0,12}$/).filter((s) => !(s in options) && s !== 'help'), (n) =>
    quiet(() => parseCommandArgs('run', 'usage', [`--${n}`, 'x'], options)) === 2));
  // Repeatable options stay repeatable; good values parse.
  const ok = quiet(() => parseCommandArgs('run', 'usage', ['--lock-opt', 'a=1', '--lock-opt', 'b=2', '--store', 's'], options));
  assert.notEqual(typeof ok, 'number');
});

test('--lock-opt: a name twice, no value or no name → 2; every built-in recipe refuses unknown names and out-of-kind values', () => {
  fc.assert(fc.property(fc.stringMatching(/^[A-Za-z]{1,10}$/), fc.integer(), fc.integer(), (n, a, b) => exit(() => parseLockOptions([`${n}=${a}`, `${n}=${b}`])) === 2));
  fc.assert(fc.property(fc.stringMatching(/^[A-Za-z]{1,10}$/), fc.constantFrom('', ' ', '\t'), (n, v) => exit(() => parseLockOptions([`${n}=${v}`])) === 2));
  assert.equal(exit(() => parseLockOptions(['=5'])), 2);
  assert.deepEqual(Object.keys(parseLockOptions(['__proto__=1'])), ['__proto__'], 'an option name, never a prototype');
  for (const r of RECIPES) {
    assert.deepEqual(Object.keys(r.optionValues ?? {}).sort(), Object.keys(r.optionsHelp ?? {}).sort(), `${r.name}: every option it documents has a declared kind`);
    const names = Object.keys(r.optionValues ?? {});
    fc.assert(fc.property(fc.stringMatching(/^[a-zA-Z]{1,12}$/).filter((n) => !names.includes(n)), fc.integer({ min: 0, max: 100 }), (n, v) =>
      exit(() => checkLockOptions({ [n]: v }, r)) === 2));
    for (const [n, kind] of Object.entries(r.optionValues ?? {})) {
      if (kind === 'number') {
        fc.assert(fc.property(fc.oneof(fc.integer({ max: -1 }), fc.constantFrom(NaN, Infinity, -Infinity, MAX_LOCK_OPTION + 1, 1e300), fc.string()), (v) =>
          exit(() => checkLockOptions(parseLockOptionsValue(n, v), r)) === (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) && Number(v) >= 0 && Number(v) <= MAX_LOCK_OPTION ? 0 : 2)));
        fc.assert(fc.property(fc.integer({ min: 0, max: MAX_LOCK_OPTION }), (v) => exit(() => checkLockOptions(parseLockOptions([`${n}=${v}`]), r)) === 0));
      } else if (Array.isArray(kind)) {
        fc.assert(fc.property(fc.string().filter((s) => !kind.includes(s)), (v) => exit(() => checkLockOptions({ [n]: v }, r)) === 2));
        for (const v of kind) assert.equal(exit(() => checkLockOptions(parseLockOptions([`${n}=${v}`]), r)), 0);
      }
    }
  }
});

/** What --lock-opt NAME=V gives for V of any type (a non-string as the library would pass it). */
function parseLockOptionsValue(n: string, v: unknown): Record<string, unknown> {
  if (typeof v === 'string') return v.trim() === '' ? { [n]: v } : parseLockOptions([`${n}=${v}`]);
  return { [n]: v };
}

test('the search time must cover the lease: --ttl over --time → 2', () => {
  fc.assert(fc.property(fc.integer({ min: 50, max: MAX_MS }), fc.integer({ min: 1, max: 604_800 }), (ttl, time) =>
    exit(() => ttlWithinTime(ttl, time * 1000, '--ttl', '--time')) === (ttl > time * 1000 ? 2 : 0)));
});

test('runLockTest: wrong types, unknown option names, empty strings → UsageError (exitCode 2) before anything starts', async () => {
  const bad: unknown[] = [
    { lock: 42 }, { lock: null }, { lock: '' }, { lock: { name: 'redis-set-px-lua', create() {} } }, { lock: 'redis-set-px-lua', faults: 'a-string' },
    { lock: 'redis-set-px-lua', faults: [''] }, { lock: 'redis-set-px-lua', timeMS: 5 }, { lock: 'redis-set-px-lua', ttlMs: '800' },
    { lock: 'redis-set-px-lua', ttlMs: 3_600_000 }, { lock: 'redis-set-px-lua', store: '' }, { lock: 'redis-set-px-lua', lockOptions: { retryMs: -5 } },
    { lock: 'redis-set-px-lua', lockOptions: { retyMs: 5 } }, { lock: 'redis-set-px-lua', lockOptions: [] }, { lock: 'redis-set-px-lua', clients: NaN },
    { lock: 'redis-set-px-lua', seed: 2 ** 53 }, null, 'redis-set-px-lua',
  ];
  for (const o of bad) {
    await assert.rejects(runLockTest(o as never), (e: Error & { exitCode?: number }) => {
      assert.equal(e.exitCode, 2, `${JSON.stringify(o)}: ${e.message}`);
      return true;
    });
  }
});

test('proxy toxics: a time past the longest timer, a negative, NaN or non-number attribute → 400', () => {
  for (const [type, attr] of [['latency', 'latency'], ['latency', 'jitter'], ['timeout', 'timeout'], ['reset_peer', 'timeout']] as const) {
    fc.assert(fc.property(fc.oneof(fc.double({ min: MAX_TIMER_MS + 1, max: 1e300, noNaN: true }), fc.constantFrom(1e10, -1, NaN, Infinity), fc.string()), (v) =>
      exit(() => parseToxic({ type, attributes: { [attr]: v } })) === 400));
    fc.assert(fc.property(fc.integer({ min: 0, max: MAX_TIMER_MS }), (v) => parseToxic({ type, attributes: { [attr]: v } }).attributes[attr] === v));
  }
});
