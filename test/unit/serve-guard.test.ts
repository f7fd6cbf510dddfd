// What `lockpick serve` refuses, without a socket: a foreign Host (DNS rebinding), no token,
// a change from another site, a path out of the store (.., encoded, a symlink out), a store
// that is not one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesPrefix, refusal, tokenSource } from '../../src/serve/guard.ts';
import { storePath } from '../../src/serve/store-path.ts';
import { checkStore, scanStore } from '../../src/serve/store-scan.ts';
import { tempDir } from '../support/temp-dir.ts';

const g = { port: 4321, token: 'a'.repeat(48) };
const q = (s = '') => new URLSearchParams(s);
const cookie = `lockpick_token_4321=${g.token}`;

test('the Host header must be this server on loopback', () => {
  assert.match(refusal('GET', { host: 'evil.example', cookie }, q(), g)!, /Host header/);
  assert.match(refusal('GET', { host: 'evil.example:4321', cookie }, q(), g)!, /Host header/);
  assert.match(refusal('GET', { host: '127.0.0.1:9999', cookie }, q(), g)!, /Host header/);
  assert.match(refusal('GET', { cookie }, q(), g)!, /Host header/);
  assert.equal(refusal('GET', { host: '127.0.0.1:4321', cookie }, q(), g), undefined);
  assert.equal(refusal('GET', { host: 'localhost:4321', cookie }, q(), g), undefined);
});

test('the token: in the query or the cookie, the whole of it', () => {
  const host = '127.0.0.1:4321';
  assert.match(refusal('GET', { host }, q(), g)!, /no valid token/);
  assert.match(refusal('GET', { host }, q(`token=${'a'.repeat(47)}`), g)!, /no valid token/);
  assert.match(refusal('GET', { host, cookie: `lockpick_token_1111=${g.token}` }, q(), g)!, /no valid token/, "another port's cookie");
  assert.equal(tokenSource({ host }, q(`token=${g.token}`), g), 'query');
  assert.equal(tokenSource({ host, cookie: `x=1; ${cookie}` }, q(), g), 'cookie');
});

test('the store\'s files: read by their key without the cookie (sandboxed frames send none), never written, the Host still checked', () => {
  const files = filesPrefix(g.token);
  assert.match(files, /^\/files\/[0-9a-f]{32}$/);
  assert.notEqual(files, filesPrefix('b'.repeat(48)));
  const host = '127.0.0.1:4321';
  assert.equal(refusal('GET', { host }, q(), g, `${files}/lock/run/timeline.html`), undefined);
  assert.match(refusal('GET', { host }, q(), g, `/files/${'0'.repeat(32)}/x`)!, /no valid token/);
  assert.match(refusal('POST', { host }, q(), g, `${files}/x`)!, /no valid token/);
  assert.match(refusal('GET', { host: 'evil.example' }, q(), g, `${files}/x`)!, /Host header/);
  assert.match(refusal('GET', { host }, q(), g, '/api/rows')!, /no valid token/);
});

test('a change only from this server\'s own page', () => {
  const host = '127.0.0.1:4321';
  assert.match(refusal('POST', { host, cookie }, q(), g)!, /own page/, 'no Origin');
  assert.match(refusal('POST', { host, cookie, origin: 'http://evil.example' }, q(), g)!, /own page/);
  assert.match(refusal('POST', { host, cookie, origin: 'null' }, q(), g)!, /own page/, 'a sandboxed frame');
  assert.match(refusal('POST', { host, cookie, origin: 'http://127.0.0.1:4321', 'sec-fetch-site': 'cross-site' }, q(), g)!, /own page/);
  assert.equal(refusal('POST', { host, cookie, origin: 'http://127.0.0.1:4321', 'sec-fetch-site': 'same-origin' }, q(), g), undefined);
  assert.equal(refusal('POST', { host: 'localhost:4321', cookie, origin: 'http://localhost:4321' }, q(), g), undefined);
});

test('no path out of the store: .., encoded ..%2f, a symlink out', () => {
  const root = realpathSync(tempDir('lockpick-serve-store-'));
  const outside = realpathSync(tempDir('lockpick-serve-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  mkdirSync(join(root, 'lock', 'run1'), { recursive: true });
  writeFileSync(join(root, 'lock', 'run1', 'results.json'), '{}');
  symlinkSync(outside, join(root, 'out'));
  symlinkSync('lock/run1', join(root, 'latest'));
  const ok = storePath(root, 'lock/run1/results.json');
  assert.ok(ok.ok && ok.path === join(root, 'lock', 'run1', 'results.json'));
  assert.ok(storePath(root, 'latest/results.json').ok, 'a link inside the store is followed');
  for (const bad of ['../x', 'lock/../../x', '..%2f..%2fetc%2fpasswd', '%2e%2e/%2e%2e/etc/passwd', 'lock%2f..%2f..%2fx', '..%5c..%5cx', 'out/secret.txt', 'out']) {
    const r = storePath(root, bad);
    assert.ok(!r.ok && r.status === 403, `${bad}: ${JSON.stringify(r)}`);
  }
  assert.deepEqual(storePath(root, 'a%00b'), { ok: false, status: 403, why: 'a NUL in the path' });
  assert.deepEqual(storePath(root, '%E0%A4%A'), { ok: false, status: 403, why: 'a malformed %-escape in the path' });
  assert.equal((storePath(root, 'nope.txt') as { status: number }).status, 404);
});

test('a store: runs and merged sets found, not a store refused with the fix', () => {
  const root = tempDir('lockpick-serve-scan-');
  checkStore(root);   // empty: a store not yet written
  mkdirSync(join(root, 'redlock', '20261129-000000-aaaaaa', 'counterexample'), { recursive: true });
  writeFileSync(join(root, 'redlock', '20261129-000000-aaaaaa', 'test.json'), JSON.stringify({ lock: 'redlock', faults: ['kill'], started: '2026-11-29T00:00:00Z' }));
  writeFileSync(join(root, 'redlock', '20261129-000000-aaaaaa', 'results.json'), JSON.stringify({ verdict: false, runs: 3, failures: [{ class: 'inherent: double-holder' }], coverage: { cells: { percent: 40 } } }));
  writeFileSync(join(root, 'redlock', '20261129-000000-aaaaaa', 'counterexample', 'test.json'), '{}');
  mkdirSync(join(root, 'merged'));
  writeFileSync(join(root, 'merged', 'results.json'), JSON.stringify({ verdict: true, lock: 'redlock', faults: ['kill'], total: 2, coverage: { runs: 9 }, shards: [{ shard: '1/2', verdict: true, dir: '/elsewhere' }] }));
  const rows = scanStore(root);
  assert.deepEqual(rows.map((r) => [r.kind, r.id, r.verdict]).sort(), [['merged', 'merged', 'SAFE'], ['run', 'redlock/20261129-000000-aaaaaa', 'UNSAFE']]);
  const run = rows.find((r) => r.kind === 'run')!;
  assert.deepEqual([run.lock, run.faults, run.classes, run.coverage, run.runs], ['redlock', ['kill'], ['inherent: double-holder'], 40, 3]);
  checkStore(root);
  assert.throws(() => checkStore(join(root, 'nope')), /no such directory[\s\S]*fix:/);
  assert.throws(() => checkStore(join(root, 'merged', 'results.json')), /not a directory/);
  assert.throws(() => checkStore(join(root, 'redlock', '20261129-000000-aaaaaa')), /is one run directory, not a store/);
  const other = tempDir('lockpick-serve-other-');
  writeFileSync(join(other, 'README.md'), 'hello');
  mkdirSync(join(other, 'src'));
  assert.throws(() => checkStore(other), /not a lockpick store[\s\S]*fix:/);
});
