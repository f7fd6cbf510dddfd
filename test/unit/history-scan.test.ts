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
  const name = fc.constantFrom('type', 'f', 'process', 'key', 'value', 'time', 'index', 'lease_ms', 'valid_ms', 'sent_ms', 'typo', 'va', 'valuex', 'valid', 'f1', 'ke', 'tim');
  const line = fc.dictionary(name, fc.oneof(word, fc.integer(), fc.constant(null)), { maxKeys: 6 }).map((o) => JSON.stringify(o));
  const ALL = [...FIELDS, 'valid_ms', 'sent_ms'] as const;
  fc.assert(fc.property(fc.array(line, { minLength: 1, maxLength: 40 }), (lines) => {
    const s = new LineScanner();
    const buf = Buffer.from(lines.join('\n') + '\n', 'utf8');
    let at = 0;
    for (const text of lines) {
      const end = at + Buffer.byteLength(text);
      if (s.scan(buf, at, end)) {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        for (const k of ALL) assert.deepEqual(s.ev[k as keyof typeof s.ev], Object.hasOwn(parsed, k) ? parsed[k] : undefined, `${k} of ${text}`);
      } else assert.ok(/é|\\|"(type|f|process|key|value|time|index|lease_ms|valid_ms|sent_ms)":.*"\1":/.test(text) || /[^\x20-\x7e]/.test(text), `not scanned: ${text}`);
      at = end + 1;
    }
  }), { numRuns: 2000 });
});
