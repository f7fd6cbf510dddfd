// The README's table of environment kinds × capabilities says what the registry
// says (`lockpick list` prints it from ENV_KINDS): each cell starts with yes, no
// or "with <setup>", and each row names every fault kind that needs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENV_KINDS, capabilityCell } from '../../src/env/env-kinds.ts';
import { CAPABILITIES, isCapability } from '../../src/env/capabilities.ts';
import { isLocalEngine } from '../../src/env/docker-kind.ts';
import { FAULT_KINDS } from '../../nemesis/kinds.ts';

const readme = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../README.md'), 'utf8');

/** The table's rows under "| capability |" in "## Environment kinds": cells without the outer pipes. */
function table(): string[][] {
  const section = readme.slice(readme.indexOf('## Environment kinds'));
  const lines = section.slice(section.indexOf('| capability |')).split('\n');
  const rows: string[][] = [];
  for (const l of lines) {
    if (!l.startsWith('|')) break;
    rows.push(l.slice(1, -1).split('|').map((c) => c.trim()));
  }
  return rows;
}

test('README: the environment kinds × capabilities table matches the registry', () => {
  const [head, , ...rows] = table();
  assert.deepEqual(head!.slice(2), ENV_KINDS.map((k) => k.name), 'one column per registered kind, in order');
  assert.deepEqual(rows.map((r) => r[0]!.replace(/`/g, '')), Object.keys(CAPABILITIES), 'one row per capability, in order');
  for (const r of rows) {
    const c = r[0]!.replace(/`/g, '');
    assert.ok(isCapability(c));
    for (const f of FAULT_KINDS.filter((k) => k.needs.includes(c))) assert.match(r[1]!, new RegExp(`\\b${f.kind}\\b`), `row ${c} names ${f.kind}`);
    ENV_KINDS.forEach((k, i) => {
      // docker's node-link and clock need the engine on this machine; the README says so in the cell.
      if (k.name === 'docker' && !isLocalEngine()) return;
      const said = r[2 + i]!.replace(/`/g, '');
      const want = capabilityCell(k, c);
      assert.ok(said === want || said.startsWith(`${want} `) || said.startsWith(`${want},`), `${c} × ${k.name}: README says '${said}', the registry '${want}'`);
    });
  }
});
