// --env docker's arguments: --image ROLE=IMAGE parsed, and refused (exit 2 words) where it does not fit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnv } from '../../src/commands/run.ts';
import { parseImages } from '../../src/env/docker-kind.ts';
import { envKind, missingCapabilities } from '../../src/env/env-kinds.ts';
import { UsageError } from '../../src/errors.ts';

test('--image redis=IMAGE goes into the docker env spec', async () => {
  assert.deepEqual(await parseEnv('docker', undefined, false, 'redis=redis:7.2'), { kind: 'docker', images: { redis: 'redis:7.2' } });
  assert.deepEqual(await parseEnv('docker', undefined, false), { kind: 'docker' });
  assert.deepEqual(await parseImages('redis=registry.example.com:5000/team/redis@sha256:abc'), { redis: 'registry.example.com:5000/team/redis@sha256:abc' });
});

test('--image is refused without --env docker, for a role docker does not run, and when malformed', async () => {
  await assert.rejects(parseEnv(undefined, undefined, false, 'redis=x'), (e: Error) => e instanceof UsageError && /--image .*--env docker/.test(e.message));
  await assert.rejects(parseEnv('local', undefined, false, 'redis=x'), UsageError);
  await assert.rejects(parseImages('zookeeper=zookeeper:3.9'), /takes images for redis, not 'zookeeper'/);
  await assert.rejects(parseImages('redis'), /use ROLE=IMAGE/);
  await assert.rejects(parseImages('redis=bad image'), /use ROLE=IMAGE/);
});

test('the docker kind lacks clock and node links, has pause and kill', () => {
  const d = envKind('docker')!;
  assert.deepEqual(missingCapabilities(d, ['pause', 'kill', 'client-process', 'client-link']), []);
  assert.equal(missingCapabilities(d, ['clock']).length, 1);
  assert.equal(missingCapabilities(d, ['node-link', 'failover']).length, 2);
});
