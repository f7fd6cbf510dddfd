// Property tests of the readers of user input (issue 21): random and mutated JSON Lines
// histories, EDN histories and test.json files never crash a reader, never hang it, and a
// refused input always names its place (a line of the file; the test.json and the field path).
// fast-check prints the seed and path of a failure; replay it with fc.assert's { seed, path }.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { mutated as mutatedBy } from '../support/mutated.ts';
import { HistoryError } from '../../src/history/index.ts';
import { readJsonl } from '../../src/history/jsonl.ts';
import { readEdn } from '../../src/history/edn.ts';
import { UsageError } from '../../src/errors.ts';
import { readTestJson } from '../../src/runner/store.ts';

/** A reader that hangs fails its test here rather than blocking the suite. */
const HANG_MS = 30_000;
const dir = tempDir('lockpick-fuzz-');
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(content: string | Uint8Array, name = `f${n++}`): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

/** Mutations of a text: insert, delete or replace a short run of characters (or raw bytes) somewhere. */
const mutated = (base: fc.Arbitrary<string>) => mutatedBy(base,
  ['{', '}', '[', ']', '"', '\\', '\n', ',', ':', '#_', ';', '9007199254740993', '1e309', '-', '\u0000', '\uFFFD', '"process":1,']);

/** A HistoryError names a line of the file (0 only for the file as a whole). */
function namesLine(e: unknown, text: string): void {
  if (!(e instanceof HistoryError)) throw e;   // anything else is a crash of the reader
  const lines = text.split('\n').length;
  assert.ok(e.line >= 0 && e.line <= lines, `line ${e.line} of a ${lines}-line file: ${e.message}`);
  assert.match(e.message, /\n {2}fix: /);
}

const ev = fc.record({
  type: fc.constantFrom('invoke', 'ok', 'fail', 'info'), f: fc.constantFrom('acquire', 'release'),
  process: fc.oneof(fc.nat({ max: 3 }), fc.constant('nemesis')), key: fc.constantFrom('k0', 'k1'),
}, { requiredKeys: ['type', 'f', 'process'] });
const jsonlText = fc.array(ev, { maxLength: 12 }).map((evs) => evs.map((e) => JSON.stringify(e)).join('\n') + '\n');

test('JSON Lines: random and mutated histories are read or refused naming a line, never a crash', { timeout: HANG_MS }, async () => {
  await fc.assert(fc.asyncProperty(mutated(jsonlText), fc.integer({ min: 4, max: 64 }), async (text, chunk) => {
    const p = file(text);
    await readJsonl(p, chunk, { maxLineBytes: 200 }).catch((e: unknown) => namesLine(e, text));
  }), { numRuns: 300 });
});

test('JSON Lines: random bytes are read or refused naming a line', { timeout: HANG_MS }, async () => {
  await fc.assert(fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (bytes) => {
    const p = file(bytes);
    await readJsonl(p, 16, { maxLineBytes: 100 }).catch((e: unknown) => namesLine(e, Buffer.from(bytes).toString('latin1')));
  }), { numRuns: 200 });
});

const ednOp = fc.record({ type: fc.constantFrom(':invoke', ':ok', ':fail', ':info'), f: fc.constantFrom(':acquire', ':release', ':read'), process: fc.oneof(fc.nat({ max: 3 }), fc.constant(':nemesis')) })
  .map((o) => `{:type ${o.type}, :f ${o.f}, :process ${o.process}, :value nil}`);
const ednText = fc.tuple(fc.array(ednOp, { maxLength: 10 }), fc.boolean()).map(([ops, vector]) => vector ? `[${ops.join('\n ')}]\n` : `${ops.join('\n')}\n`);

test('EDN: random and mutated histories are read or refused naming a line, never a crash', { timeout: HANG_MS }, async () => {
  await fc.assert(fc.asyncProperty(mutated(ednText), fc.integer({ min: 4, max: 64 }), async (text, chunk) => {
    const p = file(text, `e${n++}.edn`);
    await readEdn(p, chunk, { maxLineBytes: 300 }).catch((e: unknown) => namesLine(e, text));
  }), { numRuns: 300 });
});

const attempt = fc.record({ key: fc.constant('k0'), delayMs: fc.nat({ max: 500 }), waitMs: fc.nat({ max: 2000 }), holdMs: fc.nat({ max: 500 }), renew: fc.boolean() });
const testJson = fc.record({
  ttlMs: fc.integer({ min: 50, max: 2000 }),
  clients: fc.array(fc.record({ attempts: fc.array(attempt, { maxLength: 3 }) }), { minLength: 1, maxLength: 3 }),
  faults: fc.array(fc.oneof(
    fc.record({ kind: fc.constant('client-pause'), at_ms: fc.nat({ max: 1000 }), duration_ms: fc.nat({ max: 2000 }), target: fc.constantFrom('c1', 'c2', 'c3'), params: fc.constant({ point: 'in-critical-section' }) }),
    fc.record({ kind: fc.constantFrom('pause', 'kill'), at_ms: fc.nat({ max: 1000 }), duration_ms: fc.nat({ max: 2000 }), target: fc.constant('n1') }),
  ), { maxLength: 2 }),
}).map((plan) => ({ lock_spec: { name: 'redis-set-px-lua' }, plan }));

/** Every path to a value inside x (objects and arrays walked). */
function paths(x: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (x === null || typeof x !== 'object') return [at];
  const kids = Array.isArray(x) ? x.map((v, i) => [i, v] as const) : Object.entries(x);
  return [at, ...kids.flatMap(([k, v]) => paths(v, [...at, k]))];
}

/** test.json with one value somewhere replaced by any JSON value (a hand edit that still parses). */
const edited = fc.tuple(testJson, fc.nat(), fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(-5000, 2e9, 'forever', 'c99', 'meteor', 1e308, -0.5))).map(([t, i, v]) => {
  const all = paths(t).filter((p) => p.length > 0);
  const path = all[i % all.length]!;
  let o = t as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  o[path.at(-1)!] = v;
  return JSON.stringify(t, null, 1);
});

test('test.json (run --replay): random and mutated files load or are refused as bad input naming the file (and the field)', { timeout: HANG_MS }, () => {
  fc.assert(fc.property(fc.oneof(mutated(testJson.map((t) => JSON.stringify(t, null, 1))), edited), (text) => {
    const d = mkdtempSync(join(dir, 'r-'));
    writeFileSync(join(d, 'test.json'), text);
    try {
      readTestJson(d);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      assert.ok(e.message.startsWith(`${join(d, 'test.json')}: `), e.message);
      // A plan refused names the field: "plan", "plan.clients[0]...", "plan.faults[1].target"...
      if (/"plan"|plan\./.test(e.message) && !/not valid JSON|not a JSON object|"plan" is/.test(e.message)) assert.match(e.message, /: plan(\.|\[|:)/, e.message);
      assert.match(e.message, /\n {2}fix: /);
    }
  }), { numRuns: 400 });
});
