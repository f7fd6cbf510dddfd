// --env docker: each Redis a container (testcontainers) on the local Docker
// engine, from lockpick-redis:local built out of this machine's redis-server.
// A client pause breaks redis-set-px-del (exit 1, shrunk); redis-set-px-lua
// stays SAFE fault-free; pause freezes a container and kill stops it, restart
// starts it empty (and, in a run, pause and kill show as docker events); Ctrl-C and a kill -9 leave no container behind (the latter
// after the next invocation). Skipped, saying so, when no Docker engine answers
// (CI does not start dockerd; LOCKPICK_DOCKER_TESTS=1 bash scripts/setup.sh does).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { anomalyTypes, bin, lockpick, repoRoot, tempStore } from './run-helpers.ts';
import { dockerSkip } from './docker-helpers.ts';
import { leftovers, removeLeftovers } from './docker-leftovers.ts';

const skip = dockerSkip('env-docker');

/** Containers (servers and their namespace holders, "name state") and networks ("network name") lockpick labelled. */
function ours(): string[] {
  return leftovers();
}

/** The server containers alone (each node also has a holder, "<name>-net", owning its network namespace). */
function servers(): string[] {
  return ours().filter((l) => !/^(network|volume) /.test(l) && !l.split(' ')[0]!.endsWith('-net'));
}

function inspect(name: string): { Running: boolean; Paused: boolean } {
  return JSON.parse(execFileSync('docker', ['inspect', '--format', '{{json .State}}', name], { encoding: 'utf8' })) as { Running: boolean; Paused: boolean };
}

after(() => {
  if (skip) return;
  assert.deepEqual(removeLeftovers(), [], 'no container, network or volume is left after the tests');
});

test('docker: a client pause breaks redis-set-px-del (exit 1, shrunk counterexample); no container left', { skip }, async () => {
  const r = await lockpick(['run', '--env', 'docker', '--lock', 'redis-set-px-del', '--faults', 'client-pause', '--pause-at', 'in-critical-section',
    '--clients', '3', '--first-failure', '--time', '90', '--shrink-time', '25', '--store', tempStore(), '--json'], 300_000);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(anomalyTypes(r).includes('double-holder'), `anomalies: ${anomalyTypes(r)}`);
  const m = r.summary!.minimal!;
  assert.ok(m.ops <= 8 && m.faults <= 1, `shrunk to ${m.ops} ops and ${m.faults} fault(s)`);
  assert.deepEqual(ours(), []);
});

test('docker: redis-set-px-lua fault-free is SAFE (exit 0)', { skip }, async () => {
  const r = await lockpick(['run', '--env', 'docker', '--lock', 'redis-set-px-lua', '--clients', '3', '--first-failure', '--time', '10', '--store', tempStore(), '--json'], 180_000);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.summary!.verdict, true, 'SAFE');
  assert.deepEqual(ours(), []);
});

test('docker: pause freezes the container, kill stops it, restart starts it empty; down removes it', { skip }, async () => {
  const { startEnv } = await import('../../src/env/env-kinds.ts');
  const env = await startEnv({ kind: 'docker' }, 'redis', { masters: 1, resource: true });
  try {
    const n1 = env.node('n1');
    assert.equal(n1.host, '127.0.0.1');
    const name = servers().map((l) => l.split(' ')[0]!).find((x) => x.endsWith('-n1'))!;
    // The node's port is published by its holder, which owns its network namespace.
    assert.match(execFileSync('docker', ['port', `${name}-net`], { encoding: 'utf8' }), new RegExp(`^6379/tcp -> 127\\.0\\.0\\.1:${n1.port}\\s*$`), 'published on loopback only');
    const [ep] = await env.clientEndpoints('c1');
    assert.notEqual(ep!.port, n1.port, 'the client goes through the fault proxy');
    const r = new Redis({ host: ep!.host, port: ep!.port, maxRetriesPerRequest: 0, commandTimeout: 1000, retryStrategy: () => 100 });
    r.on('error', () => {});
    try {
      await r.set('k', 'v');
      await n1.pause();
      await n1.pause(); // overlapping pauses are fine, as SIGSTOP twice is
      assert.equal(inspect(name).Paused, true);
      await assert.rejects(r.get('k'), /timed out/i, 'a paused server does not answer');
      await n1.resume();
      assert.equal(await r.get('k'), 'v');
      await n1.kill();
      assert.equal(inspect(name).Running, false);
      await n1.restart();
      assert.equal(inspect(name).Running, true);
      for (let i = 0; i < 50 && r.status !== 'ready'; i++) await new Promise((res) => setTimeout(res, 100));
      assert.equal(await r.get('k'), null, 'restarted without persistence: the key is gone');
      // The clock shim in the container: TIME jumps with the node's offset.
      const before = Number((await r.time())[0]);
      await n1.setClockOffsetMs(20_000);
      const ahead = Number((await r.time())[0]) - before;
      assert.ok(ahead >= 19 && ahead <= 23, `TIME moved ${ahead} s for a +20 s offset`);
    } finally {
      r.disconnect();
    }
  } finally {
    await env.down();
  }
  assert.deepEqual(ours(), []);
});

test('docker: pause and kill act on the containers (docker events), counted as applied', { skip }, async () => {
  // A fixed plan (replayed, as `lockpick run --replay` does) that pauses n1 and later kills it while
  // two clients take turns; the fenced lock under --property resource keeps the run conclusive.
  const dir = tempStore();
  const attempt = (delayMs: number) => ({ key: 'k0', delayMs, waitMs: 1500, holdMs: 300, renew: false });
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    lock: 'redis-set-px-lua-fenced', lock_spec: { name: 'redis-set-px-lua-fenced' }, property: 'resource', lock_options: {}, env: { kind: 'docker' },
    plan: {
      ttlMs: 1000,
      clients: [0, 100].map((d) => ({ attempts: [attempt(d), attempt(200), attempt(200), attempt(200)] })),
      faults: [{ kind: 'pause', at_ms: 300, duration_ms: 600, target: 'n1' }, { kind: 'kill', at_ms: 1300, duration_ms: 100, target: 'n1', params: { persistence: 'none' } }],
    },
  }));
  let r: Awaited<ReturnType<typeof lockpick>> | undefined;
  const actions = (await containerEvents(async () => {
    r = await lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json'], 180_000);
  })).map((l) => l.split(' ')[0]);
  // A kill without persistence may well break it (exit 1); anything but a lockpick failure will do here.
  assert.ok([0, 1, 3].includes(r!.code!), r!.stderr);
  for (const a of ['pause', 'unpause', 'kill', 'start']) assert.ok(actions.includes(a), `docker event '${a}' seen (got: ${[...new Set(actions)].join(', ')})`);
  assert.match(r!.stderr, /faults applied: .*pause [1-9]/);
  assert.match(r!.stderr, /faults applied: .*kill [1-9]/);
  assert.deepEqual(ours(), []);
});

test('docker: with a remote engine (DOCKER_HOST=tcp://...) clock faults are refused up front (exit 2 naming the capability)', async () => {
  // The clock shim and the node-link rules need the engine's namespaces and bind mounts on this machine.
  const r = await lockpick(['run', '--env', 'docker', '--lock', 'redis-set-px-del', '--faults', 'clock-bump', '--store', tempStore()], 30_000, { DOCKER_HOST: 'tcp://127.0.0.1:9' });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /needs 'clock' \(.+\), which the docker environment does not have/);
});

/** Starts `lockpick run --env docker` and resolves once its containers are up. */
async function runUntilContainers(): Promise<ReturnType<typeof spawn>> {
  const child = spawn(process.execPath, [bin, 'run', '--env', 'docker', '--lock', 'redis-set-px-lua', '--first-failure', '--time', '120', '--store', tempStore()], { cwd: repoRoot, stdio: 'ignore' });
  for (let i = 0; i < 600 && servers().length < 2; i++) await new Promise((res) => setTimeout(res, 100));
  assert.equal(servers().length, 2, 'n1 and the resource node run as containers');
  return child;
}

test('docker: Ctrl-C removes the containers; after a kill -9 the next invocation does', { skip }, async () => {
  const a = await runUntilContainers();
  const code = await new Promise<number | null>((res) => { a.on('exit', (c) => res(c)); a.kill('SIGINT'); });
  assert.equal(code, 130);
  assert.deepEqual(ours(), [], 'Ctrl-C: no container left');
  const b = await runUntilContainers();
  await new Promise<void>((res) => { b.on('exit', () => res()); b.kill('SIGKILL'); });
  assert.equal(servers().length, 2, 'a kill -9 leaves them running');
  assert.ok(ours().some((l) => l.startsWith('network ')), 'and their network');
  const r = await lockpick(['run', '--env', 'docker', '--lock', 'redis-set-px-lua', '--first-failure', '--time', '2', '--store', tempStore()], 120_000);
  assert.match(r.stderr + r.stdout, /removed leftover container lockpick-\S+-n1 \(left by lockpick pid \d+, which is gone\)/);
  assert.deepEqual(ours(), [], 'the next invocation removed them');
});

/** `docker events` of lockpick's containers while `body` runs: "Action image" lines. */
async function containerEvents(body: () => Promise<void>): Promise<string[]> {
  const events = spawn('docker', ['events', '--filter', 'label=lockpick=1', '--filter', 'type=container', '--format', '{{.Action}} {{.From}}'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let seen = '';
  events.stdout.on('data', (d) => { seen += d; });
  try {
    await body();
    await new Promise((res) => setTimeout(res, 1000));
  } finally {
    events.kill();
  }
  return seen.split('\n').filter(Boolean);
}

test('docker: --image goes into test.json and --replay runs on containers of that image again', { skip }, async () => {
  const image = 'lockpick-redis:local';
  const store = tempStore();
  const r = await lockpick(['run', '--env', 'docker', '--image', `redis=${image}`, '--lock', 'redis-set-px-lua', '--runs', '1', '--first-failure', '--time', '20', '--store', store, '--json'], 180_000);
  assert.ok([0, 3].includes(r.code!), r.stderr);
  const testJson = path.join(r.summary!.dir, 'test.json');
  const stored = JSON.parse(readFileSync(testJson, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(stored.env, { kind: 'docker', images: { redis: image } });
  // A SAFE run stores no plan: give it a small one (two clients on one key) to replay, and an
  // image that is not the default (the same one under another tag), so the replay can only use it by reading test.json.
  const tagged = 'lockpick-redis:replay-test';
  execFileSync('docker', ['tag', image, tagged]);
  try {
    stored.plan = { ttlMs: 800, clients: [0, 1].map((i) => ({ attempts: [{ key: 'k0', delayMs: i * 100, waitMs: 1000, holdMs: 200, renew: false }] })), faults: [] };
    stored.env = { kind: 'docker', images: { redis: tagged } };
    writeFileSync(testJson, JSON.stringify(stored));
    let replayed: Awaited<ReturnType<typeof lockpick>> | undefined;
    const events = await containerEvents(async () => {
      replayed = await lockpick(['run', '--replay', r.summary!.dir, '--runs', '1', '--store', store, '--json'], 180_000);
    });
    assert.ok([0, 3].includes(replayed!.code!), replayed!.stderr);
    assert.ok(events.includes(`create ${tagged}`), `the replay created containers from ${tagged} (docker events: ${events.join('; ')})`);
    assert.deepEqual((JSON.parse(readFileSync(path.join(replayed!.summary!.dir, 'test.json'), 'utf8')) as { env: unknown }).env, { kind: 'docker', images: { redis: tagged } });
  } finally {
    execFileSync('docker', ['rmi', tagged], { stdio: 'ignore' });
  }
  assert.deepEqual(ours(), []);
});

/** `lockpick env up ARGS --json` until it prints its endpoints; the child and what it printed. */
async function envUp(args: string[]): Promise<{ child: ReturnType<typeof spawn>; up: { env: string; nodes: { id: string }[]; clientEndpoints: { host: string; port: number }[] } }> {
  const child = spawn(process.execPath, [bin, 'env', 'up', ...args, '--json'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  for (let i = 0; i < 1200 && !out.includes('\n') && child.exitCode === null; i++) await new Promise((res) => setTimeout(res, 100));
  assert.ok(out.includes('\n'), `env up printed its endpoints (exit ${child.exitCode}): ${err}`);
  return { child, up: JSON.parse(out) as never };
}

test('docker: lockpick env up redis --env docker serves proxied endpoints; Ctrl-C and env down remove the containers', { skip }, async () => {
  const a = await envUp(['redis', '--env', 'docker', '--image', 'redis=lockpick-redis:local', '--resource']);
  assert.equal(a.up.env, 'docker');
  assert.deepEqual(a.up.nodes.map((n) => n.id), ['n1', 'resource']);
  assert.equal(servers().length, 2, 'n1 and the resource node as containers');
  const r = new Redis({ host: a.up.clientEndpoints[0]!.host, port: a.up.clientEndpoints[0]!.port, maxRetriesPerRequest: 1, lazyConnect: true });
  try { assert.equal(await r.ping(), 'PONG', 'the proxied endpoint reaches the container'); } finally { r.disconnect(); }
  const code = await new Promise<number | null>((res) => { a.child.on('exit', (c) => res(c)); a.child.kill('SIGINT'); });
  assert.equal(code, 130);
  assert.deepEqual(ours(), [], 'Ctrl-C: no container left');
  const b = await envUp(['redis', '--env', 'docker']);
  assert.equal(servers().length, 1);
  const exited = new Promise<void>((res) => b.child.on('exit', () => res()));
  const down = await lockpick(['env', 'down'], 60_000);
  assert.equal(down.code, 0, down.stderr);
  await exited;
  assert.deepEqual(ours(), [], "'lockpick env down': no container left");
});
