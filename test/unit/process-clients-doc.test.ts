// docs/process-clients.md answers from the code: its recipe field table names every field a
// recipe file takes (src/locks/exec-recipe.ts), and its table of the protocols the proxy frames
// names, for every topology that declares a framing, that topology.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FIELDS } from '../../src/locks/exec-recipe.ts';
import { TOPOLOGY_DEFS } from '../../src/env/topologies.ts';
import { declared } from '../../src/env/topology.ts';

const doc = readFileSync(new URL('../../docs/process-clients.md', import.meta.url), 'utf8');

/** The rows of the table under `heading` (up to the next heading). */
function rows(heading: string): string[] {
  const at = doc.indexOf(heading);
  assert.ok(at >= 0, `no section '${heading}'`);
  const rest = doc.slice(at + heading.length);
  const end = rest.search(/\n#{2,3} /);
  return (end < 0 ? rest : rest.slice(0, end)).split('\n').filter((l) => l.startsWith('| `'));
}

test('the recipe field table names every field a recipe file takes', () => {
  const named = rows('## Naming it').flatMap((r) => [...r.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
  assert.deepEqual(FIELDS.filter((f) => !named.includes(f)), []);
  assert.deepEqual(named.filter((f) => !FIELDS.includes(f)), [], 'a documented field the recipe file does not take');
});

test('the table of framed protocols names every topology that declares a framing', () => {
  const table = rows('## Protocols the proxy frames').map((r) => r.split('|')[1]!);
  const framed = [...TOPOLOGY_DEFS.values()].filter((d) => declared(d.framing) !== undefined).map((d) => d.name);
  assert.ok(framed.includes('memcached'));
  for (const name of framed) assert.ok(table.some((cell) => cell.includes(`\`${name}\``)), `${name} declares framing but is not in the table`);
});
