import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderJUnit, xmlEscape } from '../../src/report/junit.ts';
import type { CheckResult } from '../../checkers/types.ts';
import { doubleHolderResult } from './report-fixtures.ts';

interface El { name: string; attrs: Record<string, string>; children: El[]; text: string }

const ENTITY = /&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;
const unescape = (s: string): string => s.replace(ENTITY, (_m, e: string) =>
  ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e] ?? String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)));

/** A strict little XML well-formedness check (no DTDs, no CDATA: the writer uses neither); returns the root. */
function parseXml(xml: string): El {
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/);
  const body = xml.replace(/^<\?xml[^?]*\?>/, '');
  const stack: El[] = [{ name: '#doc', attrs: {}, children: [], text: '' }];
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < body.length && (m = token.exec(body)) !== null) {
    at = token.lastIndex;
    const [, close, name, attrText, selfClose, text] = m;
    const top = stack[stack.length - 1]!;
    if (text !== undefined) {
      assert.equal(text.replace(ENTITY, '').includes('&'), false, `bare & in text: ${text}`);
      if (top.name === '#doc') assert.match(text, /^\s*$/, 'text outside the root');
      top.text += unescape(text);
      continue;
    }
    if (close) {
      assert.equal(top.name, name, `</${name}> closes <${top.name}>`);
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of attrText!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
      assert.equal(a[2]!.replace(ENTITY, '').includes('&'), false, `bare & in attribute ${a[1]}`);
      assert.equal(a[1]! in attrs, false, `duplicate attribute ${a[1]}`);
      attrs[a[1]!] = unescape(a[2]!);
    }
    const el: El = { name: name!, attrs, children: [], text: '' };
    top.children.push(el);
    if (!selfClose) stack.push(el);
  }
  assert.equal(at, body.length, `not well-formed near: ${body.slice(at, at + 60)}`);
  assert.equal(stack.length, 1, `unclosed <${stack[stack.length - 1]!.name}>`);
  assert.equal(stack[0]!.children.length, 1, 'exactly one root element');
  return stack[0]!.children[0]!;
}
const all = (e: El, name: string): El[] => [...(e.name === name ? [e] : []), ...e.children.flatMap((c) => all(c, name))];

const valid: CheckResult = { valid: true, model: 'mutex', ops: 40, keys: 2, anomalies: [], elapsed_ms: 1234,
  keys_detail: { a: { valid: true, ops: 20 }, b: { valid: true, ops: 20 } } };

test('a valid result gives passing testcases, one per key, with times in seconds', () => {
  const root = parseXml(renderJUnit([{ name: 'run-1', result: valid }]));
  assert.equal(root.name, 'testsuites');
  assert.deepEqual([root.attrs.tests, root.attrs.failures, root.attrs.errors, root.attrs.time], ['2', '0', '0', '1.234']);
  const [suite] = all(root, 'testsuite');
  assert.equal(suite!.attrs.name, 'run-1');
  assert.deepEqual(all(root, 'testcase').map((c) => c.attrs.name), ['key "a"', 'key "b"']);
  assert.equal(all(root, 'failure').length + all(root, 'error').length, 0);
});

test('an invalid key carries a failure with the anomaly in plain words; the others pass', () => {
  const r = doubleHolderResult();
  r.keys_detail.other = { valid: true, ops: 3 };
  const root = parseXml(renderJUnit([{ name: 'store/run-7', result: r, meta: { lock: 'set-px-del', seed: 42 } }]));
  assert.equal(root.attrs.failures, '1');
  const cases = all(root, 'testcase');
  assert.equal(cases.length, 2);
  const failed = cases.find((c) => c.attrs.name === 'key "orders"')!;
  const [failure] = failed.children;
  assert.equal(failure!.name, 'failure');
  assert.equal(failure!.attrs.type, 'double-holder');
  assert.match(failure!.attrs.message!, /both held it from line 7 to line 9/);
  assert.match(failure!.text, /processes: 0, 1; lines: 2, 7, 9; times \(ms from run start\): 41\.000, 61\.000/);
  assert.equal(cases.find((c) => c.attrs.name === 'key "other"')!.children.length, 0);
  const props = Object.fromEntries(all(root, 'property').map((p) => [p.attrs.name, p.attrs.value]));
  assert.deepEqual([props.model, props.lock, props.seed, props.valid], ['mutex', 'set-px-del', '42', 'false']);
});

test('unknown is an error (a CI gate must not pass), not skipped', () => {
  const r: CheckResult = { valid: 'unknown', model: 'cas-register', ops: 9, keys: 1, anomalies: [], elapsed_ms: 5000,
    keys_detail: { '': { valid: 'unknown', ops: 9, reason: 'time limit 5000 ms reached' } }, reason: 'time limit 5000 ms reached' };
  const root = parseXml(renderJUnit([{ name: 'h', result: r }]));
  assert.deepEqual([root.attrs.errors, root.attrs.failures, root.attrs.skipped], ['1', '0', '0']);
  const [err] = all(root, 'error');
  assert.equal(err!.attrs.type, 'unknown');
  assert.match(err!.attrs.message!, /time limit 5000 ms/);
});

test('everything is escaped: markup, quotes and control characters in keys, names and messages', () => {
  const nasty = 'k<&>"\'\u0001\uD800]]>';
  const r: CheckResult = { valid: false, model: 'mutex', ops: 2, keys: 1, elapsed_ms: 1, keys_detail: { [nasty]: { valid: false, ops: 2 } },
    anomalies: [{ type: 'stale-release', key: nasty, processes: [3], lines: [4], message: `release of ${nasty} </failure><x>` }] };
  const xml = renderJUnit([{ name: `suite ${nasty}`, result: r, meta: { note: nasty } }]);
  assert.equal(/[\u0001]/.test(xml), false);
  const root = parseXml(xml);
  const [failure] = all(root, 'failure');
  assert.equal(failure!.text.includes('</failure><x>'), true);
  assert.equal(all(root, 'testcase')[0]!.attrs.name, 'key "k<&>"\'\uFFFD\uFFFD]]>"');
  assert.equal(xmlEscape('a&b'), 'a&amp;b');
});

test('several histories become several suites; totals add up', () => {
  const root = parseXml(renderJUnit([{ name: 'one', result: valid }, { name: 'two', result: doubleHolderResult() }]));
  assert.equal(all(root, 'testsuite').length, 2);
  assert.deepEqual([root.attrs.tests, root.attrs.failures], ['3', '1']);
  assert.equal(root.attrs.time, '1.236');
});

test('the well-formedness check itself rejects broken XML', () => {
  const head = '<?xml version="1.0" encoding="UTF-8"?>\n';
  assert.throws(() => parseXml(`${head}<a><b></a></b>`));
  assert.throws(() => parseXml(`${head}<a x="1 & 2"/>`));
  assert.throws(() => parseXml(`${head}<a>1 < 2</a>`));
  assert.throws(() => parseXml(`${head}<a/><b/>`));
});
