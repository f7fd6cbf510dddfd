// `lockpick check` loads only what checking needs: many small histories in a CI gate pay its
// start-up on every call. The topology registry gives the checker its words; the server client
// libraries behind it load on use (src/env/topology-*.ts), never for `check`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('importing the check command loads no server client library (ioredis, pg, mysql2)', () => {
  const script = `
    const { createRequire } = await import('node:module');
    await import('./src/commands/check.ts');
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => /node_modules\\/(ioredis|pg|mysql2)\\//.test(f));
    // The probe itself: requiring one shows up in that cache (else this test could never fail).
    createRequire(import.meta.url)('ioredis');
    const probe = Object.keys(createRequire(import.meta.url).cache).some((f) => /node_modules\\/ioredis\\//.test(f));
    console.log(JSON.stringify({ loaded, probe }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  const { loaded, probe } = JSON.parse(out.trim().split('\n').pop()!) as { loaded: string[]; probe: boolean };
  assert.equal(probe, true, 'the require cache shows a loaded package');
  assert.deepEqual(loaded, []);
});
