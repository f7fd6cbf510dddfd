// Docs that list registry entries follow the registries: a fault kind added by one registry
// line is missing from faults.md's table until it has a row; a prose list of topologies says
// "e.g." or "…" (a new topology needs no edit of it) and what it does list is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { topologyNames } from '../../src/env/topologies.ts';
import { KINDS } from '../../nemesis/kinds.ts';

const root = path.resolve(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(path.join(root, f), 'utf8');

test("docs/faults.md has one table row per registered fault kind, and no other", () => {
  const rows = read('docs/faults.md').split('\n').filter((l) => /^\| `[a-z-]+` \|/.test(l)).map((l) => /^\| `([a-z-]+)`/.exec(l)![1]!);
  assert.deepEqual([...rows].sort(), KINDS.map((k) => k.schema.kind).sort());
});

test("docs/writing-a-lock.md's unknown-topology example begins as the message lockpick prints", () => {
  const doc = read('docs/writing-a-lock.md').replace(/\s+/g, ' ');
  const m = /unknown topology '([a-z-]+)'; registered: ([a-z, -]+), …"/.exec(doc);
  assert.ok(m, 'the example is there, ending in … (a new topology needs no edit of it)');
  assert.ok(!topologyNames().includes(m[1]!), `the example's unknown topology '${m[1]}' is registered`);
  assert.ok(topologyNames().join(', ').startsWith(m[2]!), `'${m[2]}' begins '${topologyNames().join(', ')}'`);
});
