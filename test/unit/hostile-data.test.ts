// User data never becomes an object's shape, and what lockpick reads back is checked (issue 35):
// property tests feeding prototype names (`__proto__`, `constructor`, `toString`, ...) as lock
// keys, fault kinds, counter names and toxic attributes through the readers and reports,
// `__proto__` smuggled into events, EDN maps with an odd number of forms and every character
// literal, values nested past the bound, and edited run files given to `lockpick report`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { HistoryError, readHistory } from '../../src/history/index.ts';
import { MAX_VALUE_DEPTH } from '../../src/history/limits.ts';
import { checkHistory } from '../../checkers/index.ts';
import { checkHistory as apiCheckHistory } from '../../src/api.ts';
import { renderJUnit } from '../../src/report/junit.ts';
import { formatResult } from '../../src/report/text.ts';
import { faultEffects } from '../../src/runner/fault-effects.ts';
import { readLockStats, type Lock } from '../../src/locks/lock.ts';
import { ApiError, parseToxic } from '../../src/proxy/toxics.ts';
import { validateFaultSpec } from '../../nemesis/spec.ts';
import { KINDS } from '../../nemesis/kinds.ts';
import { run as report } from '../../src/commands/report.ts';
import { jsonl, tmpHistory } from './history-tmp.ts';
import { tempDir } from '../support/temp-dir.ts';
import { doubleHolderEvents } from './report-fixtures.ts';

/** Names Object.prototype gives every plain object, and the one that sets an object's prototype. */
const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'toLocaleString', '__defineGetter__', 'propertyIsEnumerable'];
const name = fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/));

/** A history where each key gets a double holder (two ok acquires, no release) or a clean acquire/release. */
function events(keys: readonly string[], doubled: readonly boolean[]): Record<string, unknown>[] {
  const ev: Record<string, unknown>[] = [];
  keys.forEach((key, i) => {
    const p = 2 * i;
    ev.push({ type: 'invoke', f: 'acquire', process: p, key }, { type: 'ok', f: 'acquire', process: p, key });
    if (doubled[i]) ev.push({ type: 'invoke', f: 'acquire', process: p + 1, key }, { type: 'ok', f: 'acquire', process: p + 1, key });
    else ev.push({ type: 'invoke', f: 'release', process: p, key }, { type: 'ok', f: 'release', process: p, key });
  });
  return ev;
}

/** The same events as EDN op maps, one per line. */
function edn(evs: readonly Record<string, unknown>[]): string {
  return evs.map((e) => `{:type :${String(e.type)}, :f :${String(e.f)}, :process ${String(e.process)}, :key ${JSON.stringify(e.key)}}`).join('\n') + '\n';
}

test('prototype names as lock keys: every key keeps its verdict in keys_detail, JUnit and text, from JSON Lines and EDN', async () => {
  await fc.assert(fc.asyncProperty(fc.uniqueArray(name, { minLength: 1, maxLength: 4 }), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), async (keys, doubled) => {
    const evs = events(keys, doubled);
    for (const path of [tmpHistory(jsonl(...evs)), tmpHistory(edn(evs), 'edn')]) {
      const r = checkHistory(await readHistory(path), { model: 'mutex' });
      assert.deepEqual(Object.keys(r.keys_detail).sort(), [...keys].sort(), 'no key vanishes');
      assert.equal(r.keys, keys.length);
      keys.forEach((k, i) => {
        assert.ok(Object.hasOwn(r.keys_detail, k));
        assert.equal(r.keys_detail[k]!.valid, !doubled[i], k);
        assert.equal(r.anomalies.some((a) => a.key === k && a.type === 'double-holder'), doubled[i], k);
      });
      const xml = renderJUnit([{ name: 'h', result: r }]);
      for (const [i, k] of keys.entries()) {
        const esc = k.replace(/&/g, '&amp;');
        const tc = new RegExp(`<testcase classname="[^"]*" name="key &quot;${esc}&quot;"[^>]*>(\\s*<failure type="double-holder")?`).exec(xml);
        assert.ok(tc, `a testcase of its own for key ${k}`);
        assert.equal(tc[1] !== undefined, doubled[i], `the double holder of ${k} is under its own testcase`);
      }
      assert.doesNotMatch(xml, /name="other anomalies"/);
      if (doubled.slice(0, keys.length).some(Boolean)) assert.match(formatResult('h', r), /INVALID/);
    }
  }), { numRuns: 40 });
});

test('"__proto__" smuggled into an event at any depth is refused with exit 2 naming its line, in JSON Lines and EDN', async () => {
  const nest = (depth: number, inner: string, json: boolean): string => {
    let v = inner;
    for (let d = 0; d < depth; d++) v = json ? (d % 2 ? `[${v}]` : `{"a":${v}}`) : (d % 2 ? `[${v}]` : `{:a ${v}}`);
    return v;
  };
  await fc.assert(fc.asyncProperty(fc.nat({ max: 5 }), fc.nat({ max: 3 }), fc.boolean(), async (depth, line, twice) => {
    const good = (p: number) => ({ type: 'invoke', f: 'write', process: p, value: 1 });
    const before = Array.from({ length: line }, (_, i) => JSON.stringify(good(i)));
    const jsonBad = `{"type":"invoke","f":"write","process":9,"value":${nest(depth, `{"__proto__":{"x":1}${twice ? ',"__proto__":2' : ''}}`, true)}}`;
    const ednBefore = before.map((_, i) => `{:type :invoke, :f :write, :process ${i}, :value 1}`);
    const ednBad = `{:type :invoke, :f :write, :process 9, :value ${nest(depth, `{:__proto__ {:x 1}${twice ? ' :__proto__ 2' : ''}}`, false)}}`;
    for (const [text, ext] of [[[...before, jsonBad].join('\n') + '\n', 'jsonl'], [[...ednBefore, ednBad].join('\n') + '\n', 'edn']] as const) {
      const e = await readHistory(tmpHistory(text, ext)).then(() => undefined, (x: unknown) => x);
      assert.ok(e instanceof HistoryError, `${ext}: refused: ${String(e)}`);
      assert.equal(e.rule, 'proto-key', e.message);
      assert.equal(e.line, line + 1, e.message);
    }
  }), { numRuns: 30 });
  // The event itself given as {:__proto__ {...op...}}: no op appears (was: INVALID, exit 1).
  const e = await readHistory(tmpHistory('{:__proto__ {:type :invoke, :f :acquire, :process 0}}\n{:__proto__ {:type :ok, :f :acquire, :process 0}}\n', 'edn')).catch((x: unknown) => x);
  assert.ok(e instanceof HistoryError && e.rule === 'proto-key' && e.line === 1, String(e));
});

test('EDN: a map with an odd number of forms is refused naming its line; every character literal, \\" included, is read', async () => {
  await fc.assert(fc.asyncProperty(fc.nat({ max: 3 }), fc.constantFrom(':extra', '1', '"s"', 'nil', '[1 2]'), fc.nat({ max: 4 }), async (line, extra, at) => {
    const fields = [':type :invoke', ':f :write', ':process 9', ':value 1'];
    fields.splice(at % (fields.length + 1), 0, extra);
    const text = [...Array.from({ length: line }, (_, i) => `{:type :invoke, :f :write, :process ${i}, :value 1}`), `{${fields.join(', ')}}`].join('\n') + '\n';
    const e = await readHistory(tmpHistory(text, 'edn')).then(() => undefined, (x: unknown) => x);
    assert.ok(e instanceof HistoryError, `refused: ${text}`);
    assert.equal(e.line, line + 1, e.message);
    assert.match(e.message, /odd number of forms/);
  }), { numRuns: 30 });
  const printable = fc.integer({ min: 33, max: 126 }).map((c) => String.fromCharCode(c));
  await fc.assert(fc.asyncProperty(fc.array(printable, { minLength: 1, maxLength: 8 }), async (chars) => {
    const lit = chars.map((c) => `\\${c}`).join(' ');
    const text = `[{:type :invoke, :f :write, :process 0, :value [${lit}]}\n {:type :ok, :f :write, :process 0, :value [${lit}]}]\n`;
    const h = await readHistory(tmpHistory(text, 'edn'));
    assert.deepEqual(h.ops[0]!.value, chars, lit);
    assert.equal(h.ops[0]!.completeLine, 2);
  }), { numRuns: 50 });
  const named = await readHistory(tmpHistory('{:type :invoke, :f :write, :process 0, :value [\\newline \\space \\tab \\u0041 "a\\"b"]}\n', 'edn'));
  assert.deepEqual(named.ops[0]!.invokeValue, ['\n', ' ', '\t', 'A', 'a"b']);
});

test(`values nested past ${MAX_VALUE_DEPTH} are refused naming the line (JSON Lines, EDN, the library's events); up to it they are checked`, async () => {
  const nested = (d: number, open: string, close: string) => `${open.repeat(d)}1${close.repeat(d)}`;
  await fc.assert(fc.asyncProperty(fc.oneof(fc.constantFrom(MAX_VALUE_DEPTH, MAX_VALUE_DEPTH + 1), fc.integer({ min: 1, max: MAX_VALUE_DEPTH }), fc.integer({ min: MAX_VALUE_DEPTH + 1, max: 6000 })), async (depth) => {
    const deep = depth > MAX_VALUE_DEPTH;
    const j = nested(depth, '[', ']');
    const texts: [string, string][] = [
      [`{"type":"invoke","f":"write","process":0,"value":${j}}\n{"type":"ok","f":"write","process":0,"value":${j}}\n`, 'jsonl'],
      [`{:type :invoke, :f :write, :process 0, :value ${j}}\n{:type :ok, :f :write, :process 0, :value ${j}}\n`, 'edn'],
    ];
    for (const [text, ext] of texts) {
      const got = await readHistory(tmpHistory(text, ext)).then((h) => checkHistory(h, { model: 'register' }), (x: unknown) => x);
      if (deep) assert.ok(got instanceof HistoryError && got.rule === 'too-deep' && got.line === 1, `${ext} ${depth}: ${String(got)}`);
      else assert.equal((got as { valid: unknown }).valid, true, `${ext} ${depth}: ${String(got)}`);
    }
    const value = JSON.parse(j) as unknown;
    const api = await apiCheckHistory([{ type: 'invoke', f: 'write', process: 0, value }, { type: 'ok', f: 'write', process: 0, value }], { model: 'register' }).catch((x: unknown) => x);
    if (deep) assert.ok(api instanceof HistoryError && api.rule === 'too-deep', String(api));
    else assert.equal((api as { valid: unknown }).valid, true);
    // A parsed history made (or changed) by hand is checked the same way.
    const h = await readHistory(tmpHistory(jsonl({ type: 'invoke', f: 'write', process: 0, value: 1 }, { type: 'ok', f: 'write', process: 0, value: 1 })));
    h.ops[0]!.invokeValue = h.ops[0]!.value = value;
    const parsed = await apiCheckHistory(h, { model: 'register' }).catch((x: unknown) => x);
    if (deep) assert.ok(parsed instanceof HistoryError && parsed.rule === 'too-deep', String(parsed));
    else assert.equal((parsed as { valid: unknown }).valid, true);
  }), { numRuns: 20 });
  // A value that contains itself cannot come from a file; from the library it is refused, not a stack overflow.
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const e = await apiCheckHistory([{ type: 'invoke', f: 'write', process: 0, value: cyclic }], { model: 'register' }).catch((x: unknown) => x);
  assert.ok(e instanceof HistoryError && e.rule === 'cyclic-value', String(e));
});

test('prototype names as fault kinds, lock counters, fault params and toxic attributes are names like any other', () => {
  fc.assert(fc.property(fc.uniqueArray(fc.constantFrom(...PROTO_NAMES), { minLength: 1, maxLength: 4 }), (names) => {
    const evs = names.map((k) => ({ type: 'info' as const, f: `${k}-start`, process: 'nemesis' as const, value: {} }));
    const fx = faultEffects([], evs, 1000);
    assert.deepEqual(Object.keys(fx.applied).sort(), [...names].sort());
    for (const k of names) assert.equal(fx.applied[k], 1, k);
    // Counters arrive as JSON (from a worker), so "__proto__" is an own key there.
    const raw = JSON.parse(`{${names.map((k, i) => `"${k}": ${i + 1}`).join(',')}}`) as Record<string, number>;
    const stats = readLockStats({ stats: () => raw } as unknown as Lock)!;
    assert.deepEqual(Object.keys(stats).sort(), [...names].sort());
    for (const [i, k] of names.entries()) {
      assert.throws(() => parseToxic(JSON.parse(`{"type":"latency","attributes":{"${k}":5}}`)), (x: unknown) => x instanceof ApiError && x.status === 400, `attribute ${k}`);
      assert.throws(() => parseToxic({ type: k }), (x: unknown) => x instanceof ApiError && x.status === 400, `type ${k}`);
      assert.throws(() => validateFaultSpec(JSON.parse(`{"kind":"partition","at_ms":0,"target":"n1","params":{"${k}":1}}`), KINDS.map((d) => d.schema), 0), /unknown param/, `param ${k}`);
      assert.equal(stats[k], i + 1);
    }
  }), { numRuns: 20 });
});

test('report on a run dir with an edited results.json or test.json: never VALID for a double holder, never a crash (exit 1 or 2)', async () => {
  const dir = tempDir('lockpick-edited-');
  const history = doubleHolderEvents().map((e) => JSON.stringify(e)).join('\n') + '\n';
  const good = { valid: false, model: 'mutex', ops: 6, keys: 1, anomalies: [], keys_detail: { orders: { valid: false, ops: 6 } }, elapsed_ms: 1 };
  const field = fc.constantFrom('valid', 'model', 'ops', 'keys', 'anomalies', 'keys_detail', 'elapsed_ms', 'reason', 'verdict', 'result');
  const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(null, true, 'unknown', {}, [], [{}], { orders: null }, { __proto__: null }));
  let n = 0;
  // The report goes to a file (--out): standard output is the test runner's.
  const quiet = async (args: string[]): Promise<number> => {
    const [log, err] = [console.log, console.error];
    console.log = console.error = () => {};
    try { return await report([...args, '--out', join(dir, 'out.txt')]); } finally { console.log = log; console.error = err; }
  };
  await fc.assert(fc.asyncProperty(fc.dictionary(field, anyValue, { maxKeys: 3 }), fc.boolean(), fc.dictionary(fc.constantFrom('model', 'plan', 'lock_spec', 'env', 'seed', 'faults', '__proto__', 'toString'), anyValue, { maxKeys: 2 }), async (edits, asResult, testEdits) => {
    const run = join(dir, `run-${n++}`);
    mkdirSync(run);
    writeFileSync(join(run, 'history.jsonl'), history);
    writeFileSync(join(run, 'results.json'), JSON.stringify(asResult ? { ...good, ...edits } : edits));
    writeFileSync(join(run, 'test.json'), JSON.stringify({ lock: 'set-px-del', model: 'mutex', seed: 1, ...testEdits }));
    const code = await quiet([run, '--format', 'text']);
    assert.ok(code === 1 || code === 2, `exit ${code} for results ${JSON.stringify(edits)}, test ${JSON.stringify(testEdits)}`);
  }), { numRuns: 60 });
  // The case of the issue: keys_detail null under a VALID verdict.
  const run = join(dir, 'issue');
  mkdirSync(run);
  writeFileSync(join(run, 'history.jsonl'), history);
  writeFileSync(join(run, 'results.json'), JSON.stringify({ ...good, valid: true, keys_detail: null }));
  assert.equal(await quiet([run, '--format', 'json']), 2);
});

test('prototype names as keys, client names, fault kinds and targets reach every report format: nothing vanishes, nothing crashes', async () => {
  const dir = tempDir('lockpick-names-');
  const quiet = async (args: string[]): Promise<number> => {
    const [log, err] = [console.log, console.error];
    console.log = console.error = () => {};
    try { return await report(args); } finally { console.log = log; console.error = err; }
  };
  let n = 0;
  await fc.assert(fc.asyncProperty(fc.uniqueArray(fc.constantFrom(...PROTO_NAMES), { minLength: 4, maxLength: 4 }), fc.constantFrom(...PROTO_NAMES), async ([k1, k2, c1, c2], kind) => {
    const ms = (t: number) => t * 1_000_000;
    const ev = (type: string, p: number, key: string, client: string, t: number) => ({ type, f: 'acquire', process: p, key, client, time: ms(t) });
    const fault = (edge: string, t: number) => ({ type: 'info', f: `${kind}-${edge}`, process: 'nemesis', value: { target: [k2, `client:${c2}`], client: c1 }, time: ms(t) });
    const history = tmpHistory(jsonl(ev('invoke', 0, k1!, c1!, 1), ev('ok', 0, k1!, c1!, 2), fault('start', 2.5), ev('invoke', 1, k1!, c2!, 3), ev('ok', 1, k1!, c2!, 4), fault('stop', 4.5),
      ev('invoke', 2, k2!, c2!, 5), ev('ok', 2, k2!, c2!, 6)));
    for (const format of ['text', 'json', 'junit', 'html']) {
      const out = join(dir, `r${n++}.${format}`);
      assert.equal(await quiet([history, '--format', format, '--out', out]), 1, format);
      const text = readFileSync(out, 'utf8');
      // The text lists only the keys not shown valid; JUnit names keys, not clients.
      const names = format === 'text' ? [k1!, c1!, c2!] : format === 'junit' ? [k1!, k2!] : [k1!, k2!, c1!, c2!];
      for (const name of names) assert.ok(text.includes(name), `${format}: ${name} is named`);
    }
    const json = JSON.parse(readFileSync(join(dir, `r${n - 3}.json`), 'utf8') /* this case's json */) as { keys_detail: Record<string, { valid: unknown }> };
    assert.deepEqual(Object.keys(json.keys_detail).sort(), [k1, k2].sort());
    assert.equal(json.keys_detail[k1!]!.valid, false);
    assert.equal(json.keys_detail[k2!]!.valid, true);
  }), { numRuns: 15 });
});
