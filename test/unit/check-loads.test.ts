// `lockpick check` loads only what checking needs: many small histories in a CI gate pay its
// start-up on every call. The topology registry gives the checker its words; the server client
// libraries behind it load on use (src/env/topology-*.ts), never for `check`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/temp-dir.ts';

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

test('the topology registry (its backends\' words) loads only for a history or an option that names a backend', () => {
  // A stale unlock under a lease (checkers/stale-unlock.ts): its words are the backend's.
  const stale = [
    '{"type":"invoke","f":"acquire","process":0,"key":"k","time":0,"lease_ms":800}', '{"type":"ok","f":"acquire","process":0,"key":"k","time":1000000}',
    '{"type":"invoke","f":"acquire","process":1,"key":"k","time":2000000}', '{"type":"ok","f":"acquire","process":1,"key":"k","time":900000000}',
    '{"type":"invoke","f":"release","process":0,"key":"k","time":950000000}', '{"type":"ok","f":"release","process":0,"key":"k","time":951000000}',
  ];
  const runStart = '{"type":"info","f":"run-start","process":"nemesis","value":{"run":1,"backend":"redis"}}';
  // The history is written here, in this file's temp dir (removed on exit), not by the child.
  const dir = tempDir('lockpick-loads-');
  let n = 0;
  const script = (history: string, extra: string[]) => `
    const lines = [];
    const log = console.log; console.log = (s) => lines.push(String(s));
    const { run } = await import('./src/commands/check.ts');
    // Streamed (a sweep model, no limit: checkers/stream.ts), then read whole (checkers/threads.ts).
    for (const limit of [[], ['--time-limit', '60']]) await run([${JSON.stringify(history)}, ...${JSON.stringify(extra)}, ...limit, '--json']);
    console.log = log;
    const b = await import('./checkers/backends.ts');
    let loaded = true; try { b.backendNames(); } catch { loaded = false; }
    console.log(JSON.stringify({ loaded, out: lines.join('\\n') }));`;
  const check = (file: string, extra: string[] = []) => {
    const history = join(dir, `h${n++}.jsonl`);
    writeFileSync(history, file);
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(history, extra)], { cwd: root, encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').pop()!) as { loaded: boolean; out: string };
  };
  const plain = check(`${stale.join('\n')}\n`);
  assert.equal(plain.loaded, false);
  assert.equal(plain.out.match(/the unlock freed the lock, which by then was process 1's/g)?.length, 2, plain.out);
  const named = check(`${[runStart, ...stale].join('\n')}\n`);
  assert.equal(named.loaded, true);
  assert.equal(named.out.match(/the unlock deleted the key, which by then was process 1's lock/g)?.length, 2, named.out);
  const given = check(`${stale.join('\n')}\n`, ['--backend', 'redis']);
  assert.equal(given.loaded, true);
  assert.equal(given.out.match(/the unlock deleted the key/g)?.length, 2, given.out);
});
