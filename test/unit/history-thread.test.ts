// The reader thread (src/history/jsonl-worker.ts) gives exactly what the reader on one thread
// gives: the same ops and nemesis events, or the same error at the same line; every event of a
// file longer than the shared batches arrives, in order. (LOCKPICK_READ_THREAD_BYTES=0 runs any
// test file with every history read on the thread.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { HistoryError, ReadLimitReached } from '../../src/history/index.ts';
import { readJsonl } from '../../src/history/jsonl.ts';
import { READ_THREAD } from '../../src/history/jsonl-threaded.ts';
import { BATCH_LINES, SLOTS } from '../../src/history/jsonl-batch.ts';
import { checkJsonlStreaming } from '../../checkers/stream.ts';
import { jsonl, tmpHistory } from './history-tmp.ts';

READ_THREAD.minIdle = -Infinity; // whatever the machine's load

async function read(threaded: boolean, path: string, chunk?: number, o?: Parameters<typeof readJsonl>[2]): Promise<unknown> {
  const was = READ_THREAD.minBytes;
  READ_THREAD.minBytes = threaded ? 0 : Infinity;
  try {
    return await readJsonl(path, chunk, o);
  } catch (e) {
    return e instanceof Error ? { error: e.constructor.name, message: e.message, line: (e as HistoryError).line } : e;
  } finally {
    READ_THREAD.minBytes = was;
  }
}

/** The same on one thread, on the thread sharing chunks out, and on the thread alone (every line in batches). */
async function same(path: string, chunk?: number, o?: Parameters<typeof readJsonl>[2]): Promise<unknown> {
  const one = await read(false, path, chunk, o);
  assert.deepEqual(await read(true, path, chunk, o), one);
  READ_THREAD.share = false;
  try {
    assert.deepEqual(await read(true, path, chunk, o), one);
  } finally { READ_THREAD.share = true; }
  return one;
}

/** A lock history of n acquire/release pairs over 10 processes, with times, nested values, extras and a nemesis record. */
function big(n: number): string {
  const lines: string[] = [JSON.stringify({ type: 'info', f: 'run-start', process: 'nemesis', value: { run: 1, backend: 'redis' }, time: 1 })];
  let t = 10;
  for (let i = 0; i < n; i++) {
    const p = i % 10;
    lines.push(JSON.stringify({ type: 'invoke', f: 'acquire', process: p, key: `k${i % 3}`, time: t++, client: `c${p}` }));
    lines.push(JSON.stringify({ type: 'ok', f: 'acquire', process: p, key: `k${i % 3}`, time: t++, lease_ms: 800 }));
    lines.push(JSON.stringify({ type: 'invoke', f: 'release', process: p, key: `k${i % 3}`, time: t++ }));
    lines.push(JSON.stringify({ type: 'ok', f: 'release', process: p, key: `k${i % 3}`, value: i % 7 === 0 ? { lost: true } : undefined, time: t++ }));
    if (i % 1000 === 0) lines.push('', ' {"type":"info","f":"note","process":"nemesis","value":"sch\u00f6n \\"quoted\\""}');
  }
  return lines.join('\n') + '\n';
}

test('a file longer than all the shared batches reads the same on the thread, every event in order', async () => {
  const n = Math.ceil((SLOTS + 2) * BATCH_LINES / 4);
  const path = tmpHistory(big(n));
  for (const chunk of [undefined, 4096]) {
    const h = await same(path, chunk) as { ops: unknown[]; nemesis: unknown[]; events: number };
    assert.equal(h.ops.length, 2 * n);
    assert.equal(h.nemesis.length, 1 + Math.ceil(n / 1000));
  }
});

test('every hostile line is refused at the same line with the same words on the thread', async () => {
  const inv = (p: number, extra: object = {}) => JSON.stringify({ type: 'invoke', f: 'acquire', process: p, key: 'k', ...extra });
  const prefix = big(BATCH_LINES / 2); // the bad line comes after a few batches
  const cases = [
    'not json', '{"type":"invoke",}', '{"type":"ok","type":"fail"}', '{"value":{"a":1,"a":2}}', inv(1, { time: 1.5 }),
    inv(1, { process: 2 ** 60 }), '{"type":"ok","f":"acquire","process":99999,"key":"k"}', '[1,2]', inv(1, { pad: 'x'.repeat(500) }),
    // Lines of the usual five fields that break a rule (HistoryBuilder.addCommon hands them to addFields).
    inv(-1), '{"type":"done","f":"acquire","process":1,"key":"k","time":5}', inv(1, { key: 7 }), inv(1, { time: 'soon' }),
  ];
  for (const bad of cases) {
    const path = tmpHistory(`${prefix}${bad}\n${inv(5)}\n`);
    const r = await same(path, undefined, { maxLineBytes: 400 }) as { error?: string; line?: number };
    assert.equal(r.error, 'HistoryError', bad);
    assert.equal(r.line, prefix.split('\n').length, bad);
  }
  const utf8 = tmpHistory('');
  writeFileSync(utf8, Buffer.concat([Buffer.from(prefix), Buffer.from('{"type":"invoke","f":"acquire","process":1,"key":"k\xff"}\n', 'latin1')]));
  assert.match(JSON.stringify(await same(utf8, 1000)), /not-utf8/);
  const noNewline = tmpHistory(`\ufeff${jsonl({ type: 'invoke', f: 'acquire', process: 0, key: 'k' })}{"type":"ok","f":"acquire","process":0,"key":"k"}`);
  assert.equal((await same(noNewline, 7) as { ops: { outcome: string }[] }).ops[0]!.outcome, 'ok');
  assert.match(JSON.stringify(await same('/nonexistent/h.jsonl')), /ENOENT/);
});

test('a limit reached while reading on the thread stops it (ReadLimitReached)', async () => {
  const path = tmpHistory(big(BATCH_LINES));
  let asked = 0;
  READ_THREAD.minBytes = 0;
  try {
    const e = await readJsonl(path, 4096, { limit: () => (++asked > 2 ? 'time limit of 1 ms reached' : undefined) }).catch((x: unknown) => x);
    assert.ok(e instanceof ReadLimitReached, String(e));
  } finally { READ_THREAD.minBytes = Infinity; }
});

test('the streaming check reads on the thread and gives the same result', async () => {
  const path = tmpHistory(big(3 * BATCH_LINES));
  const check = async (min: number) => {
    READ_THREAD.minBytes = min;
    try {
      const r = await checkJsonlStreaming(path, { model: 'mutex' });
      return { ...r, elapsed_ms: 0, check_ms: 0 };
    } finally { READ_THREAD.minBytes = Infinity; }
  };
  const one = await check(Infinity);
  assert.equal(one.ops, 6 * BATCH_LINES);
  assert.deepEqual(await check(0), one);
});

test('random values and extra fields on every line read the same through the shared batches', async () => {
  const scalar = fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constantFrom(0, -0, 2 ** 53 - 1, 1e21, 'acquire', 'ok'), fc.boolean(), fc.constant(null));
  const value = fc.oneof(scalar, fc.dictionary(fc.string(), scalar), fc.array(scalar));
  const extras = fc.dictionary(fc.string().filter((k) => !['type', 'f', 'process', 'key', 'value', 'time', 'index', 'lease_ms', 'valid_ms', 'sent_ms'].includes(k)), value, { maxKeys: 3 });
  const pair = fc.record({ f: fc.constantFrom('acquire', 'release', 'read', 'wr\u00eete', 'x"y'), key: fc.oneof(fc.string(), fc.constant(undefined)), value, reply: value, time: fc.nat(), extra: extras });
  const lines: string[] = [];
  fc.sample(pair, { numRuns: 3000, seed: 42 }).forEach((p, i) => {
    const process = i % 7;
    const key = p.key === undefined ? {} : { key: p.key };
    lines.push(JSON.stringify({ ...p.extra, type: 'invoke', f: p.f, process, ...key, value: p.value, time: p.time }));
    // An ok acquire carries the lease and validity figures (valid_ms and sent_ms: checkers/validity.ts).
    const figures = p.f === 'acquire' && i % 5 !== 0 ? { lease_ms: 800, valid_ms: (p.time % 900) - 50, sent_ms: p.time % 700 } : {};
    lines.push(JSON.stringify({ type: i % 5 === 0 ? 'fail' : 'ok', f: p.f, process, value: p.reply, time: p.time + 1, ...p.extra, ...figures }));
  });
  const h = await same(tmpHistory(lines.join('\n') + '\n'), 4096) as { ops: unknown[] };
  assert.equal(h.ops.length, 3000);
});

test('with no core to spare the thread, started while the machine is looked at, ends unused: the file is read here, the same', async () => {
  const path = tmpHistory(big(2000));
  const here = await read(false, path);
  const was = { ...READ_THREAD };
  READ_THREAD.minBytes = 0;
  READ_THREAD.minIdle = Infinity; // never enough idle cores
  try {
    assert.deepEqual(await readJsonl(path), here);
  } finally { Object.assign(READ_THREAD, was); }
});
