// The Lock contract at the boundary (src/locks/contract.ts): what a lock may
// answer, the words for what it must answer instead, and the worker turning a
// violation into an info completion plus a 'contract' message (exit 2 upstream).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAcquired, checkCreated, checkReleased, checkRenewed, describeValue } from '../../src/locks/contract.ts';
import { DefiniteFailure, isDefiniteFailure, isLockContractError, LockContractError } from '../../src/locks/lock.ts';
import { exitCodeOf } from '../../src/errors.ts';
import { isDefinite } from '../../src/locks/outcome.ts';
import { attempt, runWorker } from '../support/worker-harness.ts';

test('acquire: a Held or null keeps the contract', () => {
  assert.equal(checkAcquired('k', null, false), undefined);
  assert.equal(checkAcquired('k', { key: 'k' }, false), undefined);
  assert.equal(checkAcquired('k', { key: 'k', value: 'abc', token: 3 }, false), undefined);
  assert.equal(checkAcquired('k', { key: 'k', token: 'opaque-id' }, false), undefined);
  assert.equal(checkAcquired('k', { key: 'k', token: 12 }, true), undefined);
  assert.equal(checkAcquired('k', { key: 'k', token: '18446744073709551615' }, true), undefined);
});

test('acquire: undefined, numbers, strings, booleans and arrays are no hold; the message names the call, the value and the rule', () => {
  const u = checkAcquired('r3-k0', undefined, false)!;
  assert.equal(u.method, 'acquire');
  assert.equal(u.message, "lock contract: acquire('r3-k0') returned undefined; it must return a Held object ({ key, ... }) or null (certainly not acquired). Did you forget to return?");
  assert.match(checkAcquired('k', 42, false)!.message, /acquire\('k'\) returned 42; it must return a Held object .* A truthy value is not a hold/);
  assert.match(checkAcquired('k', 'yes', false)!.message, /returned "yes"; it must return a Held/);
  assert.match(checkAcquired('k', true, false)!.message, /returned true;/);
  assert.match(checkAcquired('k', false, false)!.message, /returned false; .* Return null when the lock was not acquired/);
  assert.match(checkAcquired('k', [{ key: 'k' }], false)!.message, /returned an array of 1;/);
  assert.match(checkAcquired('k', {}, false)!.message, /returned \{\}, whose key is undefined; .* Held\.key is the lock name, a string/);
  assert.match(checkAcquired('k', { key: 5 }, false)!.message, /whose key is 5/);
});

test('acquire: a token is a finite number or a string; a fencing recipe needs an integer token on every hold', () => {
  assert.match(checkAcquired('k', { key: 'k', token: NaN }, false)!.message, /returned a token NaN; .* a finite number or a string/);
  assert.match(checkAcquired('k', { key: 'k', token: { n: 1 } }, false)!.message, /returned a token \{"n":1\}/);
  assert.match(checkAcquired('k', { key: 'k', token: 5n }, false)!.message, /returned a token 5n/);
  assert.match(checkAcquired('k', { key: 'k' }, true)!.message, /without a token; .* fencing: true, so every Held needs an integer token/);
  assert.match(checkAcquired('k', { key: 'k', token: 'abc' }, true)!.message, /returned a token "abc"; .* must be an integer/);
  assert.match(checkAcquired('k', { key: 'k', token: 1.5 }, true)!.message, /returned a token 1\.5/);
  assert.match(checkAcquired('k', { key: 'k', token: null }, true)!.message, /returned a token null/);
});

test("release and renew: only 'released'/'lost' and 'renewed'/'lost'", () => {
  for (const ok of ['released', 'lost']) assert.equal(checkReleased('k', ok), undefined);
  for (const ok of ['renewed', 'lost']) assert.equal(checkRenewed('k', ok), undefined);
  const r = checkReleased('r1-k0', 'ok')!;
  assert.equal(r.method, 'release');
  assert.equal(r.message, "lock contract: release(held of 'r1-k0') returned \"ok\"; it must return 'released' or 'lost' (the lock was no longer yours), or throw.");
  assert.match(checkReleased('k', undefined)!.message, /returned undefined; .* Did you forget to return\?/);
  assert.match(checkReleased('k', true)!.message, /returned true/);
  assert.match(checkReleased('k', 'renewed')!.message, /returned "renewed"/);
  const n = checkRenewed('k', true)!;
  assert.equal(n.method, 'renew');
  assert.match(n.message, /renew\(held of 'k'\) returned true; it must return 'renewed' or 'lost'/);
  assert.match(checkRenewed('k', 'released')!.message, /returned "released"/);
});

test('create: a Lock has acquire, release and close functions (renew a function if present)', () => {
  const fn = async () => {};
  assert.equal(checkCreated({ name: 'x', acquire: fn, release: fn, close: fn }), undefined);
  assert.equal(checkCreated({ acquire: fn, release: fn, close: fn, renew: fn }), undefined);
  assert.match(checkCreated(null)!.message, /^lock contract: create\(ctx\) returned null; it must return \(or resolve to\) a Lock: \{ name, acquire/);
  assert.match(checkCreated(undefined)!.message, /returned undefined; .* Did you forget to return\?/);
  assert.match(checkCreated('lock')!.message, /returned "lock";/);
  assert.match(checkCreated({ acquire: fn, release: fn })!.message, /returned a Lock whose close is undefined;/);
  assert.match(checkCreated({ acquire: 1, release: fn, close: fn, renew: 'no' })!.message, /whose acquire is 1, renew is "no" \(leave it out, or make it a function\)/);
  assert.equal(checkCreated(null)!.method, 'create');
});

test('describeValue: short, safe, never throws', () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  assert.equal(describeValue(cyclic), 'an object with keys a, self');
  assert.equal(describeValue('x'.repeat(200)).length, 80);
  assert.equal(describeValue(Symbol('s')), 'Symbol(s)');
  assert.equal(describeValue(function named() {}), 'a function (named)');
  assert.equal(describeValue({ big: 2n }), '{"big":"2n"}');
  assert.equal(describeValue({ toJSON() { throw new Error('no'); } }), 'an object with keys toJSON');
  assert.equal(describeValue(new Proxy({}, { ownKeys() { throw new Error('hostile'); }, get() { throw new Error('hostile'); } })), 'an object with keys (none)');
});

test('DefiniteFailure is recognised by its brand, also on a plain Error from another copy of lockpick', () => {
  assert.equal(isDefiniteFailure(new DefiniteFailure('x')), true);
  assert.equal(isDefiniteFailure(Object.assign(new Error('not sent'), { lockpickDefiniteFailure: true })), true);
  assert.equal(isDefiniteFailure({ lockpickDefiniteFailure: true }), true);
  // What another copy's class would be: same shape, different identity.
  class OtherCopy extends Error { readonly lockpickDefiniteFailure = true; }
  assert.equal(isDefiniteFailure(new OtherCopy('x')), true);
  assert.equal(isDefinite(new OtherCopy('x')), true);
  for (const no of [new Error('x'), Object.assign(new Error('x'), { lockpickDefiniteFailure: 'yes' }), null, undefined, 'DefiniteFailure']) {
    assert.equal(isDefiniteFailure(no), false, String(no));
  }
});

test('LockContractError is bad input: exit 2', () => {
  const e = new LockContractError('lock contract: ...');
  assert.equal(exitCodeOf(e), 2);
  assert.equal(isLockContractError(e), true);
  assert.equal(isLockContractError(new Error('x')), false);
});

/** The worker's record of a violation: one info completion saying so, one 'contract' message, no further attempts. */
async function expectViolation(mode: string, method: string, pattern: RegExp, o: { fenced?: boolean } = {}) {
  const r = await runWorker({ mode, attempts: [attempt({ renew: mode.startsWith('renew') }), attempt(), attempt()], ...o });
  const contract = r.messages.filter((m) => m.t === 'contract');
  assert.equal(contract.length, 1, JSON.stringify(r.messages));
  assert.equal((contract[0] as { method: string }).method, method);
  assert.match((contract[0] as { message: string }).message, pattern);
  if (method !== 'create') {
    const last = r.ops.at(-1)!;
    assert.deepEqual([last.type, last.f], ['info', method]);
    assert.match(last.error!, /^contract violation: lock contract: /);
    // It stopped: one attempt's worth of operations, every invoke completed.
    assert.equal(r.ops.filter((x) => x.f === 'acquire' && x.type === 'invoke').length, 1);
    assert.equal(r.ops.filter((x) => x.type === 'invoke').length, r.ops.filter((x) => x.type !== 'invoke').length);
  } else {
    assert.equal(r.ops.length, 0);
  }
  const done = r.messages.find((m) => m.t === 'done') as { error?: string } | undefined;
  assert.match(done?.error ?? '', /^lock contract: /);
}

test('worker: acquire returning undefined, 42 or "yes" is recorded info and reported once', async () => {
  await expectViolation('acquire-undefined', 'acquire', /acquire\('r1-k0'\) returned undefined; .* Did you forget to return\?/);
  await expectViolation('acquire-42', 'acquire', /returned 42;/);
  await expectViolation('acquire-yes', 'acquire', /returned "yes";/);
});

test('worker: a fencing recipe whose Held has no token', () => expectViolation('fenced-no-token', 'acquire', /without a token/, { fenced: true }));

test('worker: release returning "ok", renew returning true', async () => {
  await expectViolation('release-ok', 'release', /release\(held of 'r1-k0'\) returned "ok"/);
  await expectViolation('renew-garbage', 'renew', /renew\(held of 'r1-k0'\) returned true/);
});

test('worker: create() returning null or a Lock without close', async () => {
  await expectViolation('create-null', 'create', /create\(ctx\) returned null/);
  await expectViolation('create-no-close', 'create', /whose close is undefined/);
});

test('worker: a lock that keeps the contract sends no contract message', async () => {
  const r = await runWorker({ mode: 'ok', attempts: [attempt(), attempt({ renew: true })] });
  assert.equal(r.messages.filter((m) => m.t === 'contract').length, 0);
  assert.deepEqual(r.ops.filter((x) => x.type !== 'invoke').map((x) => `${x.f}:${x.type}`), ['acquire:ok', 'release:ok', 'acquire:ok', 'release:ok']);
});
