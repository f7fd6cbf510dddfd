// --env docker for etcd (3 members, peer links through the fault proxy by a nat rule in each
// member's namespace) and PostgreSQL, alone or behind PgBouncer (both run as a non-root user in their containers):
// the stored plans that break their locks locally break them in containers too, and a
// partition of the etcd leader gets a new one elected. Skipped, saying so, when no Docker
// engine answers (LOCKPICK_DOCKER_TESTS=1; scripts/docker-engine.sh up starts one).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { anomalyTypes, lockpick, repoRoot, tempStore } from './run-helpers.ts';
import { dockerSkip } from './docker-helpers.ts';
import { leftovers, removeLeftovers } from './docker-leftovers.ts';

const skip = dockerSkip('env-docker-etcd-postgres');

after(() => {
  if (skip) return;
  assert.deepEqual(removeLeftovers(), [], 'no container, network or volume is left after the tests');
});

const replayDocker = (scenario: string) => lockpick(['run', '--replay', path.join(repoRoot, 'scenarios', scenario), '--env', 'docker', '--runs', '1',
  '--store', tempStore(), '--json'], 300_000);

test('docker: etcd members in containers; the keep-alive cut breaks etcd-lease-lock there (exit 1)', { skip }, async () => {
  const r = await replayDocker('etcd-lease-lock-keepalive-cut');
  assert.equal(r.code, 1, r.stderr);
  assert.ok(anomalyTypes(r).includes('double-holder'), `anomalies: ${anomalyTypes(r)}`);
  assert.deepEqual(leftovers(), []);
});

test("docker: etcd peer links go through the proxy: a partition of 'leader' gets a new leader elected", { skip }, async () => {
  const { startEnv } = await import('../../src/env/env-kinds.ts');
  const { etcdStatus } = await import('../../src/env/etcd.ts');
  const { createFault, processClients } = await import('../../nemesis/index.ts');
  const env = await startEnv({ kind: 'docker' }, 'etcd', { members: 3 });
  const events: { f: string; value: Record<string, unknown> }[] = [];
  const ctx = { env, clients: processClients(new Map()), record: (f: string, value: unknown) => events.push({ f, value: value as Record<string, unknown> }) };
  /** The member that says it leads, other than `not`, waiting up to 20 s for an election. */
  const leader = async (not?: string): Promise<string | undefined> => {
    for (let i = 0; i < 200; i++) {
      for (const n of env.nodes.filter((x) => x.role === 'etcd')) {
        const s = await etcdStatus(n.port, n.host);
        if (s && s.member === s.leader && n.id !== not) return n.id;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return undefined;
  };
  try {
    assert.equal(env.links.filter((l) => !l.from.startsWith('client:')).length, 6, 'peer links, both ways');
    const before = await leader();
    assert.ok(before, 'a leader is elected');
    const f = createFault({ kind: 'partition', at_ms: 0, target: 'leader' }, ctx);
    await f.start();
    try {
      const started = events.find((e) => e.f === 'partition-start')!.value as { links: string[] };
      assert.ok(started.links.length === 4 && started.links.every((l) => l.split('->').includes(before)), `the leader's links: ${started.links}`);
      assert.ok(await leader(before), `partition of leader ${before}: the two others elect a new leader`);
    } finally {
      await f.stop();
    }
  } finally {
    await env.down();
  }
  assert.deepEqual(leftovers(), []);
});

test('docker: PostgreSQL in a container runs as its own non-root user; the session-kill plan breaks pg-advisory-session there (exit 1)', { skip }, async () => {
  const { startEnv } = await import('../../src/env/env-kinds.ts');
  const { postgresUser } = await import('../../src/env/postgres.ts');
  const env = await startEnv({ kind: 'docker' }, 'postgres', {});
  try {
    const name = `lockpick-${path.basename((env as unknown as { root: string }).root).replace(/^lockpick-env-/, '')}-n1`;
    const procs = execFileSync('docker', ['top', name, '-o', 'pid,uid,comm'], { encoding: 'utf8' }).trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/).slice(1));
    assert.ok(procs.length > 0 && procs.every(([uid]) => Number(uid) === postgresUser().uid), `the server's processes run as the postgres user: ${JSON.stringify(procs)}`);
  } finally {
    await env.down();
  }
  const r = await replayDocker('pg-advisory-session-killed');
  assert.equal(r.code, 1, r.stderr);
  assert.ok(anomalyTypes(r).includes('double-holder'), `anomalies: ${anomalyTypes(r)}`);
  assert.deepEqual(leftovers(), []);
});

test('docker: PgBouncer (transaction pooling) in front of PostgreSQL, containers of one image: the session lock breaks with no fault (exit 1)', { skip }, async () => {
  const r = await replayDocker('pg-advisory-pgbouncer-shared');
  assert.equal(r.code, 1, r.stderr);
  assert.ok(anomalyTypes(r).includes('double-holder'), `anomalies: ${anomalyTypes(r)}`);
  assert.deepEqual(leftovers(), []);
});
