// The checker on every public history in ../shared/corpus with a known verdict: 102 Jepsen etcd
// histories (cas-register) and 121 Knossos EDN histories (cas-register, knossos-mutex; etcd.edn
// is also invalid under the owner-aware mutex), read through the real history reader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkHistory } from '../../checkers/index.ts';
import { readHistory } from '../../src/history/index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpus = path.resolve(repoRoot, '../shared/corpus');

interface Expected { valid: boolean; model?: string; valid_under_mutex?: boolean }
const expected = (dir: string) => Object.entries(JSON.parse(readFileSync(path.join(corpus, dir, 'expected.json'), 'utf8')) as Record<string, Expected>)
  .filter(([name]) => !name.startsWith('_'));

for (const dir of ['etcd', 'knossos']) {
  test(`${dir}: every history gets its expected verdict`, async () => {
    const cases = expected(dir);
    assert.ok(cases.length > 100, `expected.json of ${dir} lists ${cases.length} histories`);
    let slowest = 0;
    for (const [name, e] of cases) {
      const file = path.join(corpus, dir, dir === 'etcd' ? `${name}.jsonl` : name);
      const h = await readHistory(file);
      const runs: [string, boolean][] = [[e.model ?? 'cas-register', e.valid]];
      if (e.valid_under_mutex !== undefined) runs.push(['mutex', e.valid_under_mutex]);
      for (const [model, want] of runs) {
        const t = performance.now();
        const r = checkHistory(h, { model, timeLimitMs: 30_000 });
        slowest = Math.max(slowest, performance.now() - t);
        assert.equal(r.valid, want, `${name} under ${model}: got ${r.valid} ${r.reason ?? ''}`);
        if (!want) assert.ok(r.anomalies.length > 0 && r.anomalies.every((a) => a.message.length > 20 && a.lines.length > 0), `${name}: invalid needs explained anomalies`);
      }
    }
    console.log(`${dir}: ${cases.length} histories, slowest check ${slowest.toFixed(0)} ms`);
  });
}

test('knossos mutex/bad/etcd.edn: the report names the two holders and the lines', async () => {
  const h = await readHistory(path.join(corpus, 'knossos/mutex/bad/etcd.edn'));
  const r = checkHistory(h, { model: 'mutex' });
  const first = r.anomalies[0]!;
  assert.equal(first.type, 'double-holder');
  assert.deepEqual(first.processes, [3, 0]);
  assert.deepEqual(first.lines, [1110, 1120]);
  assert.match(first.message, /process 0's acquire at line 1096 returned ok at line 1120, but process 3 held the lock since line 1110/);
  assert.match(first.message, /release at line 1116 failed/);
});
