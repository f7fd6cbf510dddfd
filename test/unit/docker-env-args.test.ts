// --env docker's arguments: --image ROLE=IMAGE parsed, and refused (exit 2 words) where it does not fit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnv } from '../../src/options.ts';
import { parseImages } from '../../src/env/docker-images-option.ts';
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
  // Every image kind a registered topology declares (a new one is welcome), the built-ins first.
  await assert.rejects(parseImages('consul=hashicorp/consul:1.16'), /takes images for redis, zookeeper, mariadb, postgres, etcd(, [a-z-]+)*, not 'consul'/);
  assert.deepEqual(await parseImages('etcd=quay.io/coreos/etcd:v3.5'), { etcd: 'quay.io/coreos/etcd:v3.5' });
  assert.deepEqual(await parseImages('zookeeper=zookeeper:3.9,mariadb=mariadb:11'), { zookeeper: 'zookeeper:3.9', mariadb: 'mariadb:11' });
  await assert.rejects(parseImages('redis'), /use ROLE=IMAGE/);
  await assert.rejects(parseImages('redis=bad image'), /use ROLE=IMAGE/);
});

test('the docker kind: everything on a local engine; no clock and no node links with a remote one (DOCKER_HOST=tcp://...)', async () => {
  const { isLocalEngine } = await import('../../src/env/docker-kind.ts');
  const d = envKind('docker')!;
  const all = missingCapabilities(d, ['pause', 'kill', 'client-process', 'client-link', 'clock', 'node-link', 'failover']);
  // The kind's list is read once, from this process's DOCKER_HOST (unset in CI: a local engine).
  if (isLocalEngine(process.env)) assert.deepEqual(all, []);
  else assert.deepEqual(all.map((m) => m.split(' ')[0]), ["'clock'", "'node-link'"]);
  assert.equal(isLocalEngine({ DOCKER_HOST: 'tcp://docker.example:2375' }), false);
  assert.equal(isLocalEngine({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' }), true);
});
