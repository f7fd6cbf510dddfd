// --env external on etcd: an etcd member started here by hand (with its own raft timing, as a
// user's would have) stands for the user's cluster. lockpick reads its timescales from it, puts
// its fault proxy in front (the keep-alive connection on links of its own), finds the double
// holder of the keep-alive cut there, and writes nothing but the run's prefixed keys.
import { tempDir } from '../support/temp-dir.ts';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { freePort } from '../../src/env/ports.ts';
import { etcdHealthy } from '../../src/env/etcd.ts';
import { anomalyTypes, lockpick, repoRoot, tempStore } from './run-helpers.ts';

const dir = tempDir('external-etcd-');
const [client, peer] = [await freePort(), await freePort()];
const url = (p: number) => `http://127.0.0.1:${p}`;
// Not lockpick's own timing (etcd.ts): the user's member says its own, and lockpick must read it.
const proc = spawn('etcd', ['--name', 'u1', '--data-dir', path.join(dir, 'data'), '--listen-client-urls', url(client), '--advertise-client-urls', url(client),
  '--listen-peer-urls', url(peer), '--initial-advertise-peer-urls', url(peer), '--initial-cluster', `u1=${url(peer)}`,
  '--heartbeat-interval=60', '--election-timeout=600'], { stdio: 'ignore' });
after(() => { proc.kill('SIGKILL'); rmSync(dir, { recursive: true, force: true }); });
for (let i = 0; ; i++) {
  if (await etcdHealthy(client).catch(() => false)) break;
  if (i > 100) throw new Error(`etcd on ${client} did not become healthy`);
  await new Promise((r) => setTimeout(r, 100));
}
const endpoints = `etcd=127.0.0.1:${client}`;

test("external etcd: the keep-alive cut breaks etcd-lease-lock there (exit 1); only the run's prefixed keys are written", async () => {
  const direct = new Etcd3({ hosts: url(client) });
  const keys: string[] = [];
  const watcher = await direct.watch().prefix('').create();
  watcher.on('put', (kv) => keys.push(kv.key.toString()));
  let r;
  try {
    r = await lockpick(['run', '--replay', path.join(repoRoot, 'scenarios', 'etcd-lease-lock-keepalive-cut'), '--env', 'external', '--endpoints', endpoints,
      '--runs', '1', '--store', tempStore(), '--json'], 120_000);
  } finally {
    await watcher.cancel();
    direct.close();
  }
  assert.equal(r.code, 1, r.stderr);
  assert.ok(anomalyTypes(r).includes('double-holder'), `anomalies: ${anomalyTypes(r)}`);
  const s = r.summary!;
  assert.ok(keys.length > 0, 'the run put lock keys on the external member');
  assert.deepEqual(keys.filter((k) => !k.startsWith(`lockpick:${s.runId}:`)), [], 'every key put is under the run prefix');
  const t = JSON.parse(readFileSync(path.join(s.dir, 'test.json'), 'utf8'));
  assert.deepEqual(t.env, { kind: 'external', endpoints: [{ role: 'etcd', host: '127.0.0.1', port: client }] });
});

test("external etcd: the member's own timing and shortest lease are read at start; server faults are refused (exit 2)", async () => {
  const r = await lockpick(['run', '--lock', 'etcd-mutex', '--env', 'external', '--endpoints', endpoints, '--runs', '1', '--clients', '1', '--max-attempts', '1', '--store', tempStore(), '--json'], 120_000);
  assert.match(r.stderr, /1 of 1 answered \/debug\/vars\): heartbeat 60 ms, election timeout 600 ms/);
  // etcd's minimum: 1.5 election timeouts (900 ms), in whole seconds.
  assert.match(r.stderr, /a lease asked for 1 s as 1 s/);
  const refused = await lockpick(['run', '--lock', 'etcd-mutex', '--env', 'external', '--endpoints', endpoints, '--faults', 'pause', '--store', tempStore()], 30_000);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /needs 'pause' \(.+\), which the external environment does not have/);
});
