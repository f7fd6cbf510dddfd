// test.json's environment (src/runner/env-spec.ts), without servers: --env docker
// keeps its --image choices so --replay rebuilds the same containers, and what a
// hand-edited test.json says about images is checked as --image is (exit 2 words).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { envFromTest, envJson } from '../../src/runner/env-spec.ts';
import { UsageError } from '../../src/errors.ts';

const usage = (re: RegExp) => (e: unknown) => e instanceof UsageError && re.test(e.message);
const plan = { ttlMs: 800, clients: [], faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 900, target: 'c1' }] };
const where = 'DIR/test.json';

test('--env docker --image: test.json stores the images and a replay reads them back', () => {
  const j = envJson({ kind: 'docker', images: { redis: 'redis:7.2' } } as never, undefined);
  assert.deepEqual(j.env, { kind: 'docker', images: { redis: 'redis:7.2' } });
  const back = envFromTest(JSON.parse(JSON.stringify(j)) as never, where, plan as never);
  assert.deepEqual(back.env, { kind: 'docker', images: { redis: 'redis:7.2' } });
  // No --image: nothing stored, the defaults apply again.
  assert.deepEqual(envJson({ kind: 'docker' }, undefined).env, { kind: 'docker' });
  assert.deepEqual(envFromTest({ env: { kind: 'docker' } }, where, plan as never).env, { kind: 'docker' });
});

test('--replay with --image uses those; with --env docker alone it keeps the stored ones; another kind drops them', () => {
  const stored = { env: { kind: 'docker', images: { redis: 'redis:7.2' } } };
  assert.deepEqual(envFromTest(stored, where, plan as never, { kind: 'docker', images: { redis: 'redis:6.2' } } as never).env, { kind: 'docker', images: { redis: 'redis:6.2' } });
  assert.deepEqual(envFromTest(stored, where, plan as never, { kind: 'docker' }).env, { kind: 'docker', images: { redis: 'redis:7.2' } });
  assert.deepEqual(envFromTest(stored, where, plan as never, { kind: 'local' }).env, { kind: 'local' });
});

test('bad env.images in test.json are refused naming the place and the fix', () => {
  const bad = (images: unknown) => () => envFromTest({ env: { kind: 'docker', images } }, where, plan as never);
  assert.throws(bad(['redis:7.2']), usage(/DIR\/test\.json: "env\.images" must be an object .*give --image with --replay/));
  assert.throws(bad({ redis: 7 }), usage(/"env\.images\.redis": 7 is not a string/));
  assert.throws(bad({ redis: 'bad image' }), usage(/"env\.images\.redis": 'bad image' is not an image reference/));
  assert.throws(bad({ consul: 'consul:1.16' }), usage(/"env\.images\.consul": --env docker takes images for .*not 'consul'/));
});

test("a partition between servers needs 'node-link': on --env external only with TOXIPROXY_URL, confirmed when the environment starts", async () => {
  const { capabilityProblem } = await import('../../nemesis/kinds.ts');
  const { EXTERNAL, LOCAL } = await import('../../src/env/env-kinds.ts');
  const between = { kind: 'partition', at_ms: 100, duration_ms: 1000, target: 'primary-replicas' };
  assert.match(capabilityProblem(between, EXTERNAL)!, /fault 'partition' needs 'node-link' \(.+\), which the external environment does not have/);
  assert.equal(capabilityProblem(between, LOCAL), undefined);
  // Isolating a node or a client still needs client links only (there they are all it cuts).
  assert.equal(capabilityProblem({ kind: 'partition', target: 'n1' }, EXTERNAL), undefined);
  assert.equal(capabilityProblem({ kind: 'latency', target: ['client:c1', 'n1'], params: { latency_ms: 5 } }, EXTERNAL), undefined);
  assert.match(capabilityProblem({ kind: 'latency', target: 'minority', params: { latency_ms: 5 } }, EXTERNAL)!, /'node-link'/);

  const test = { env: { kind: 'external', endpoints: [{ role: 'redis', host: 'h', port: 1 }, { role: 'redis', host: 'h', port: 2 }] } };
  const nodePlan = { ...plan, faults: [between] };
  const saved = process.env.TOXIPROXY_URL;
  try {
    delete process.env.TOXIPROXY_URL;
    assert.throws(() => envFromTest(test, where, nodePlan as never), usage(/the plan's fault 'partition' needs 'node-link' .*; for 'node-link' on --env external: set TOXIPROXY_URL/));
    process.env.TOXIPROXY_URL = 'http://127.0.0.1:8474';
    // Passed on to the environment, which refuses to start without such proxies.
    assert.deepEqual(envFromTest(test, where, nodePlan as never).env.needs, ['node-link']);
    assert.equal(envFromTest(test, where, plan as never).env.needs, undefined, 'a plan of client faults asks nothing more');
  } finally {
    if (saved === undefined) delete process.env.TOXIPROXY_URL;
    else process.env.TOXIPROXY_URL = saved;
  }
});
