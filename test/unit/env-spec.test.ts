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
  assert.throws(bad({ etcd: 'etcd:3' }), usage(/"env\.images\.etcd": --env docker takes images for .*not 'etcd'/));
});
