// What the bug report says of the lock (src/report/lock-facts.ts): a process client's recipe
// gives its name, summary and library; a built-in recipe its summary and source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../support/temp-dir.ts';
import { lockFacts } from '../../src/report/lock-facts.ts';

test("a process client's recipe: its name, its command, its summary and library", async () => {
  const dir = tempDir('lockpick-facts-');
  writeFileSync(path.join(dir, 'lease.json'), JSON.stringify({ exec: 'perl lease_lock.pl', name: 'perl-lease', summary: 'SET NX PX, Lua unlock', source: 'https://example.org/lease' }));
  const f = await lockFacts({ lock: 'lease.json', lock_spec: { path: 'lease.json' } }, dir);
  assert.deepEqual(f.lines, ['a process client `perl-lease`: `perl lease_lock.pl` (recipe `lease.json`)', 'SET NX PX, Lua unlock', 'library: https://example.org/lease']);
  writeFileSync(path.join(dir, 'plain.json'), JSON.stringify({ exec: 'perl lease_lock.pl' }));
  assert.deepEqual((await lockFacts({ lock_spec: { path: 'plain.json' } }, dir)).lines, ['a process client: `perl lease_lock.pl` (recipe `plain.json`)']);
});

test('a built-in recipe: its summary and what it follows', async () => {
  const f = await lockFacts({ lock: 'redis-set-px-lua', lock_spec: { name: 'redis-set-px-lua' } });
  assert.match(f.lines[0]!, /^lockpick's built-in recipe `redis-set-px-lua`: /);
  assert.match(f.lines[1]!, /^follows: /);
});
