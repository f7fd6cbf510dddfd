// The checker on every public history with a known verdict in the folder LOCKPICK_CORPUS names:
// 102 Jepsen etcd histories (cas-register) and 121 Knossos EDN histories (cas-register,
// knossos-mutex; etcd.edn is also invalid under the owner-aware mutex), read through the real
// history reader. Skipped, saying why, without LOCKPICK_CORPUS (../support/corpus.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkHistory } from '../../checkers/index.ts';
import { readHistory } from '../../src/history/index.ts';
import { expectedVerdict } from './checker-corpus-expect.ts';
import { corpusDir, corpusTest } from '../support/corpus.ts';

const corpus = corpusDir() ?? '';
const opts = corpusTest();

interface Expected { valid: boolean; model?: string; valid_under_mutex?: boolean }
const expected = (dir: string) => Object.entries(JSON.parse(readFileSync(path.join(corpus, dir, 'expected.json'), 'utf8')) as Record<string, Expected>)
  .filter(([name]) => !name.startsWith('_'));

for (const dir of ['etcd', 'knossos']) {
  test(`${dir}: every history gets its expected verdict`, opts, async () => {
    const cases = expected(dir);
    assert.ok(cases.length > 100, `expected.json of ${dir} lists ${cases.length} histories`);
    let slowest = 0;
    for (const [name, e] of cases) {
      const file = path.join(corpus, dir, dir === 'etcd' ? `${name}.jsonl` : name);
      const h = await readHistory(file);
      const runs: [string, boolean | 'unknown'][] = [[e.model ?? 'cas-register', expectedVerdict(e.valid, h)]];
      if (e.valid_under_mutex !== undefined) runs.push(['mutex', expectedVerdict(e.valid_under_mutex, h)]);
      for (const [model, want] of runs) {
        const t = performance.now();
        const r = checkHistory(h, { model, timeLimitMs: 30_000 });
        slowest = Math.max(slowest, performance.now() - t);
        assert.equal(r.valid, want, `${name} under ${model}: got ${r.valid} ${r.reason ?? ''}`);
        if (want === 'unknown') assert.equal(r.reason, 'no operations (the history holds only nemesis events)', name);
        if (want === false) assert.ok(r.anomalies.length > 0 && r.anomalies.every((a) => a.message.length > 20 && a.lines.length > 0), `${name}: invalid needs explained anomalies`);
      }
    }
    console.log(`${dir}: ${cases.length} histories, slowest check ${slowest.toFixed(0)} ms`);
  });
}

test('knossos mutex/bad/etcd.edn: the report names the holder whose release failed, the next acquirer and the lines', opts, async () => {
  const h = await readHistory(path.join(corpus, 'knossos/mutex/bad/etcd.edn'));
  const r = checkHistory(h, { model: 'mutex' });
  const first = r.anomalies[0]!;
  // Process 3 left its critical section (no double holder), but its release failed, so the
  // server still held the lock when process 0's acquire returned ok: not linearizable.
  assert.equal(first.type, 'nonlinearizable');
  assert.deepEqual(first.processes, [3, 0]);
  assert.deepEqual(first.lines, [1110, 1116, 1120]);
  assert.equal(first.message, 'process 0 acquired the lock at line 1120 while process 3\'s lock was still held at the server: its release at line 1116 failed and it has no lease');
});
