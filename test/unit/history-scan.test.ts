import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineScanner } from '../../src/history/jsonl-scan.ts';

const FIELDS = ['type', 'f', 'process', 'key', 'value', 'time', 'index', 'lease_ms'] as const;

/** When the byte scanner accepts a line, JSON.parse must accept it too and read the same fields. */
function agrees(line: string): boolean {
  const s = new LineScanner();
  const buf = Buffer.from(`${line}\n`, 'utf8');
  if (!s.scan(buf, 0, buf.length - 1)) return false;
  const parsed = JSON.parse(line) as Record<string, unknown>;
  assert.ok(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed), line);
  for (const k of FIELDS) assert.deepEqual(s.ev[k], Object.hasOwn(parsed, k) ? parsed[k] : undefined, `${k} of ${line}`);
  for (const k of FIELDS) if (Object.is(parsed[k], -0)) assert.ok(Object.is(s.ev[k], -0), line);
  return true;
}

test('the common shapes are read by the byte scanner, exactly as JSON.parse reads them', () => {
  for (const line of [
    '{"type":"invoke","f":"acquire","process":3,"key":"k0","time":1000}',
    '{"type":"ok","f":"acquire","process":3,"key":"k0","time":2000,"value":{"token":7},"lease_ms":800}',
    '{"type":"ok","f":"release","process":3,"value":{"lost":true},"index":0,"error":"x","node":"n1","wall":[1,2]}',
    '{"process":"nemesis","type":"info","f":"partition-start","value":{"cut":["n1","n2"]}}',
    ' {"type" : "info" , "f":"read","process":0,"value":null,"x":false,"y":true}\r',
    '{}', '{"time":-0}', '{"value":[]}', '{"index":123456789012345}',
  ]) assert.ok(agrees(line) || line.startsWith(' '), line);
});

test('anything unusual falls back to JSON.parse: escapes, non-ASCII, fractions, big or leading-zero numbers, bad syntax', () => {
  const s = new LineScanner();
  for (const line of [
    '{"key":"a\\"b"}', '{"key":"schlüssel"}', '{"time":1.5}', '{"time":1e3}', '{"time":1234567890123456}', '{"time":012}',
    '{"type":"ok",}', '{"type":"ok"} x', '{type:"ok"}', '{"type":"ok"', '{"value":{"a":1}', '{"value":{"a":}}', '[1]', '{"a":-}',
    '{"type":"ok"}}', '{"k\u0001":1}', '{"a":tru}', '',
    // duplicate keys: the slow path refuses them, naming the key
    '{"type":"ok","type":"fail"}', '{"x":1,"y":2,"x":3}', '{"value":{"a":1,"a":2}}',
  ]) {
    const buf = Buffer.from(`${line}\n`, 'utf8');
    assert.equal(s.scan(buf, 0, buf.length - 1), false, line);
  }
});

test('a line is scanned only when its newline follows it in the buffer (the loops stop there)', () => {
  const s = new LineScanner();
  const line = Buffer.from('{"type":"ok"}{"type":"ok"}');
  assert.equal(s.scan(line, 0, 13), false);
  assert.equal(s.scan(Buffer.from('{"type":"ok"}'), 0, 13), false);
  assert.equal(s.scan(Buffer.from('{"type":"ok"}\n'), 0, 13), true);
});

test('on random event-like lines and their mutations the scanner never disagrees with JSON.parse', () => {
  const scalar = fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constantFrom('invoke', 'ok', 'fail', 'info', 'acquire', 'nemesis'), fc.boolean(), fc.constant(null));
  const val = fc.oneof(scalar, fc.dictionary(fc.string(), scalar), fc.array(scalar));
  const event = fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string()), val);
  fc.assert(fc.property(event, fc.nat(), fc.string({ maxLength: 3 }), (ev, at, junk) => {
    const line = JSON.stringify(ev);
    agrees(line);
    const cut = at % (line.length + 1);
    const mutated = line.slice(0, cut) + junk + line.slice(cut + (at % 2));
    let ok = true;
    try { JSON.parse(mutated); } catch { ok = false; }
    if (agrees(mutated)) assert.ok(ok, mutated);
  }), { numRuns: 3000 });
});

test('scanLine finds the line\'s end itself and never reads past it: a value cut by a newline is left to JSON.parse', () => {
  const s = new LineScanner();
  const two = Buffer.from('{"type":"ok","f":"read","process":1,"value":[1,\n2]}\n{"type":"ok"}\n');
  const last = two.length - 1;
  assert.equal(s.scanLine(two, 0, last), -1, 'the nested value ends on the next line');
  const ok = Buffer.from('{"type":"ok","f":"read"} \r\n{"type":"invoke"}\n');
  assert.equal(s.scanLine(ok, 0, ok.length - 1), ok.indexOf(10));
  assert.equal(s.ev.f, 'read');
  assert.equal(s.scanLine(ok, ok.indexOf(10) + 1, ok.length - 1), ok.length - 1);
  assert.equal(s.ev.type, 'invoke');
  for (const text of ['{"key":"a\nb"}\n', '{"value":{"a":"x\ny"}}\n', '{"value":{"a":\n1}}\n']) {
    assert.equal(s.scanLine(Buffer.from(text), 0, text.length - 1), -1, JSON.stringify(text));
  }
});

test('one scanner over many lines (its guesses carried from line to line) reads each as JSON.parse does', () => {
  // Strings sharing first bytes and prefixes, and names near the known ones: a stale guess must never be taken.
  const word = fc.constantFrom('', 'k', 'k1', 'k10', 'k2', 'invoke', 'info', 'inf', 'ok', 'okay', 'release', 'renew', 'r', 'acquire', 'é', 'a"b');
  const name = fc.constantFrom('type', 'f', 'process', 'key', 'value', 'time', 'index', 'lease_ms', 'valid_ms', 'sent_ms', 'mode', 'permits', 'limit',
    'typo', 'va', 'valuex', 'valid', 'f1', 'ke', 'tim', 'mods', 'permit', 'limits', 'lime', 'perm_ms', 'modes');
  const line = fc.dictionary(name, fc.oneof(word, fc.integer(), fc.constant(null)), { maxKeys: 6 }).map((o) => JSON.stringify(o));
  const ALL = [...FIELDS, 'valid_ms', 'sent_ms', 'mode', 'permits', 'limit'] as const;
  fc.assert(fc.property(fc.array(line, { minLength: 1, maxLength: 40 }), (lines) => {
    const s = new LineScanner();
    const buf = Buffer.from(lines.join('\n') + '\n', 'utf8');
    let at = 0;
    for (const text of lines) {
      const end = at + Buffer.byteLength(text);
      if (s.scan(buf, at, end)) {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        for (const k of ALL) assert.deepEqual(s.ev[k as keyof typeof s.ev], Object.hasOwn(parsed, k) ? parsed[k] : undefined, `${k} of ${text}`);
      } else assert.ok(/é|\\|"(type|f|process|key|value|time|index|lease_ms|valid_ms|sent_ms|mode|permits|limit)":.*"\1":/.test(text) || /[^\x20-\x7e]/.test(text), `not scanned: ${text}`);
      at = end + 1;
    }
  }), { numRuns: 2000 });
});

test('a line ending at the very end of its buffer\'s memory (no room for the word reads) is read the same, by the bytes of a copy', () => {
  const lines = ['{"type":"invoke","f":"acquire","process":3,"key":"k0","time":1000}', '{"type":"ok","f":"acquire","process":3,"key":"k0","time":2000,"lease_ms":800}', '{"f":"x"}'];
  for (const text of lines) {
    for (let pad = 0; pad < 20; pad++) {
      // Exact-size memory: the line's '\n' is `pad` bytes from its end.
      const bytes = Buffer.from(`${text}\n${' '.repeat(pad)}`);
      const mem = Buffer.allocUnsafeSlow(bytes.length);
      bytes.copy(mem);
      const s = new LineScanner();
      assert.equal(s.scanLine(mem, 0, text.length), text.length, `${text} + ${pad}`);
      const parsed = JSON.parse(text) as Record<string, unknown>;
      for (const k of FIELDS) assert.deepEqual(s.ev[k], Object.hasOwn(parsed, k) ? parsed[k] : undefined, `${k} of ${text}`);
    }
  }
});

test('names and strings matched four bytes at a time: a near miss in any byte is never taken for the guess', () => {
  // Each known name and a guessed string, then the same with one byte changed at every position.
  const s = new LineScanner();
  for (const name of ['type', 'f', 'process', 'key', 'value', 'time', 'index', 'lease_ms', 'valid_ms', 'sent_ms']) {
    for (const word of ['ok', 'acquire', 'k0', 'invoke', 'a-longer-string-value']) {
      const good = `{"${name}":"${word}"}`;
      const buf = Buffer.from(`${good}\n`);
      s.scanLine(buf, 0, good.length); // the guess for this field and first byte
      for (let at = 2; at < good.length - 1; at++) {
        const bad = good.slice(0, at) + (good[at] === 'x' ? 'y' : 'x') + good.slice(at + 1);
        const b = Buffer.from(`${bad}\n`);
        const got = s.scanLine(b, 0, bad.length);
        if (got === -1) continue;
        const parsed = JSON.parse(bad) as Record<string, unknown>;
        const all = [...FIELDS, 'valid_ms', 'sent_ms'] as const;
        for (const k of all) assert.deepEqual(s.ev[k as keyof typeof s.ev], Object.hasOwn(parsed, k) ? parsed[k] : undefined, `${k} of ${bad}`);
        s.scanLine(buf, 0, good.length);
      }
    }
  }
});

test('integers of every length up to 15 digits, read four digits at a time, are the numbers JSON.parse reads; longer ones and fractions are left to it', () => {
  fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 17 }), fc.boolean(), fc.constantFrom('', '.5', 'e3', 'x', ' ', ',"f":"a"'), (digits, neg, after) => {
    const text = `{"time":${neg ? '-' : ''}${digits.join('')}${after}}`;
    const s = new LineScanner();
    const buf = Buffer.from(`${text}\n`);
    let ok = true;
    try { JSON.parse(text); } catch { ok = false; }
    if (s.scan(buf, 0, buf.length - 1)) {
      assert.ok(ok, text);
      assert.ok(Object.is(s.ev.time, (JSON.parse(text) as { time: number }).time), text);
    } else assert.ok(!ok || digits.length > 15 || (digits.length > 1 && digits[0] === 0) || after === '.5' || after === 'e3', `not scanned: ${text}`);
  }), { numRuns: 3000 });
});

test('a remembered line start (type then f) is taken only where the bytes are the same: near misses, other tails, duplicates', () => {
  const ALL = [...FIELDS, 'valid_ms', 'sent_ms', 'mode', 'permits', 'limit'] as const;
  const check = (s: LineScanner, text: string) => {
    const buf = Buffer.from(`${text}\n`);
    const got = s.scanLine(buf, 0, text.length);
    if (got === -1) return;
    assert.equal(got, text.length, text);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    for (const k of ALL) assert.deepEqual(s.ev[k as keyof typeof s.ev], Object.hasOwn(parsed, k) ? parsed[k] : undefined, `${k} of ${text}`);
  };
  const words = fc.constantFrom('ok', 'okay', 'o', 'invoke', 'info', 'fail', 'acquire', 'acquired', 'release', 'renew', 'read', 're', 'k0');
  const tail = fc.constantFrom('"process":1}', '"type":"ok"}', '"f":"x"}', ' "process":2}', '}', '"key":"k0","time":12}', '"process":1,"type":"ok"}', '"value":{"lost":true}}');
  fc.assert(fc.property(fc.array(fc.tuple(words, words, tail, fc.nat(), fc.boolean()), { minLength: 1, maxLength: 30 }), (lines) => {
    const s = new LineScanner();
    for (const [t, f, rest, at, change] of lines) {
      let text = `{"type":"${t}","f":"${f}",${rest}`;
      if (change) { const k = at % text.length; text = text.slice(0, k) + (text[k] === 'x' ? 'y' : 'x') + text.slice(k + 1); }
      check(s, text);
    }
  }), { numRuns: 2000 });
  // In batch mode too: the strings' ids are the batch's, after a new batch as well.
  const tags = new Uint8Array(64), nums = new Float64Array(64);
  const s = new LineScanner({ tags, nums });
  for (let batch = 0; batch < 3; batch++) {
    s.newBatch();
    for (const text of ['{"type":"invoke","f":"acquire","process":1}', '{"type":"invoke","f":"acquire","process":2}', '{"type":"ok","f":"acquire","process":1}']) {
      s.at = 0;
      const buf = Buffer.from(`${text}\n`);
      assert.equal(s.scanLine(buf, 0, text.length), text.length);
      const parsed = JSON.parse(text) as { type: string; f: string };
      assert.equal(s.strs[nums[1]!], parsed.type, text);
      assert.equal(s.strs[nums[2]!], parsed.f, text);
      assert.equal(nums[0]! & 0b110, 0b110, 'the mask says type and f');
    }
  }
});

test('a nested value remembered by its bytes is taken only for the same bytes: a near miss in any byte is parsed anew', () => {
  const s = new LineScanner();
  for (const nested of ['{"lost":true}', '{"lapse":true}', '[1,2,3]', '{"a":{"b":[1,"x"]},"c":null}', '{}']) {
    const good = `{"type":"ok","f":"release","process":1,"value":${nested}}`;
    const at0 = good.indexOf(nested);
    for (let at = at0; at < at0 + nested.length; at++) {
      for (const text of [good, good.slice(0, at) + (good[at] === '1' ? '2' : good[at] === 'x' ? 'y' : '1') + good.slice(at + 1), good]) {
        const buf = Buffer.from(`${text}\n`);
        if (s.scanLine(buf, 0, text.length) === -1) { assert.throws(() => JSON.parse(text)); continue; }
        assert.deepEqual(s.ev.value, (JSON.parse(text) as { value: unknown }).value, text);
      }
    }
  }
});
