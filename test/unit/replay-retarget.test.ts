// A stored plan's I/O points against another lock's requests (src/runner/replay-retarget.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasIoPoints, retargetIoPoints } from '../../src/runner/replay-retarget.ts';
import type { RunPlan } from '../../src/workload/plan.ts';

const plan = (faults: RunPlan['faults']): RunPlan => ({ ttlMs: 800, clients: [{ attempts: [] }, { attempts: [] }], faults });
const pause = (point: string, anchor?: string) => ({ kind: 'client-pause', at_ms: 0, duration_ms: 900, target: 'c1', params: { point }, ...(anchor ? { anchor: { client: 'c2', point: anchor } } : {}) });
const reached = (release: { sends: number; replies: number }) => ({ io: { acquire: { sends: 1, replies: 1 }, release }, named: [] });

test('a point past the fix\'s last request of that operation moves to its last; each move said', () => {
  const p = plan([pause('send:release:3'), pause('reply:release:2', 'send:release:2'), pause('before-write')]);
  assert.ok(hasIoPoints(p));
  const r = retargetIoPoints(p, reached({ sends: 1, replies: 1 }));
  assert.deepEqual(r.plan.faults.map((f) => [f.params?.point, f.anchor?.point]), [['send:release:1', undefined], ['reply:release:1', 'send:release:1'], ['before-write', undefined]]);
  assert.equal(r.moves.length, 3);
  assert.match(r.moves[0]!, /^plan\.faults\[0\]\.params\.point: send:release:3 moved to send:release:1: this lock's release makes 1 request\(s\) at most/);
  assert.match(r.moves[2]!, /^plan\.faults\[1\]\.anchor\.point: send:release:2 moved to send:release:1/);
  assert.equal(p.faults[0]!.params!.point, 'send:release:3', 'the stored plan is left as it was');
});

test('nothing moves where the fix has the point, or where its run counted no request of that kind', () => {
  const p = plan([pause('send:release:2'), pause('send:renew:2')]);
  assert.equal(retargetIoPoints(p, reached({ sends: 2, replies: 2 })).plan, p);
  assert.deepEqual(retargetIoPoints(p, reached({ sends: 0, replies: 0 })).moves, [], 'no request seen (a protocol the proxy does not frame): nothing to move to');
  assert.deepEqual(retargetIoPoints(p, undefined).moves, []);
  assert.equal(hasIoPoints(plan([pause('before-write')])), false);
});
