// Docs that list registry entries follow the registries: a topology or fault kind added by
// one registry line is missing from them until they name it, and a removed one is caught too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { topologyNames } from '../../src/env/topologies.ts';
import { KINDS } from '../../nemesis/kinds.ts';

const root = path.resolve(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(path.join(root, f), 'utf8');

/** The backticked words of `text` (each once). */
const ticked = (text: string) => new Set([...text.matchAll(/`([a-z][a-z0-9-]*)`/g)].map((m) => m[1]!));

test("docs/faults.md has one table row per registered fault kind, and no other", () => {
  const rows = read('docs/faults.md').split('\n').filter((l) => /^\| `[a-z-]+` \|/.test(l)).map((l) => /^\| `([a-z-]+)`/.exec(l)![1]!);
  assert.deepEqual([...rows].sort(), KINDS.map((k) => k.schema.kind).sort());
});

test("LockContext's comment says what each registered topology gives a client", () => {
  const src = read('src/locks/lock.ts');
  const block = src.slice(src.indexOf('Per topology'), src.indexOf('export interface LockContext'));
  assert.ok(block.length > 0);
  const named = ticked(block);
  for (const t of topologyNames()) assert.ok(named.has(t), `src/locks/lock.ts: LockContext's comment does not name topology '${t}'`);
});

test("docs/writing-a-lock.md's unknown-topology example is the message lockpick prints", () => {
  const doc = read('docs/writing-a-lock.md').replace(/\s+/g, ' ');
  const m = /unknown topology '([a-z-]+)'; registered: ([a-z, -]+)"/.exec(doc);
  assert.ok(m, 'the example is there');
  assert.ok(!topologyNames().includes(m[1]!), `the example's unknown topology '${m[1]}' is registered`);
  assert.equal(m[2], topologyNames().join(', '));
});
