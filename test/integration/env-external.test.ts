// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// --env external: a redis-server started here by hand stands for the user's
// own server. lockpick puts its fault proxy in front of it, finds the client
// pause that breaks redis-set-px-del, writes nothing there but the run's keys
// under its prefix, replays from test.json, refuses server faults up front
// (exit 2 naming the capability) and leaves no process behind.
import { tempDir } from '../support/temp-dir.ts';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/env/ports.ts';
import { anomalyTypes, lockpick, markedProcesses, tempStore } from './run-helpers.ts';

/** Processes lockpick starts for an environment: its fault proxy and servers in private lockpick-env- dirs. */
// Every process this file's lockpick runs start inherits this mark in its environment, so
// lockpick runs of other checkouts on the same machine are not counted as ours.
const MARK = `LOCKPICK_TEST_MARK=external-${process.pid}-${Date.now()}`;
process.env.LOCKPICK_TEST_MARK = MARK.slice(MARK.indexOf('=') + 1);

function lockpickProcesses(): Set<number> {
  return new Set(markedProcesses(process.env.LOCKPICK_TEST_MARK!, /proxy\/server-main\.[jt]s|runner\/worker\.[jt]s|lockpick-env-/));
}

async function startRedisByHand(): Promise<{ port: number; proc: ChildProcess; dir: string }> {
  const dir = tempDir('external-redis-');
  const port = await freePort();
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const r = new Redis({ port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    r.on('error', () => {});
    try { await r.connect(); if ((await r.ping()) === 'PONG') { r.disconnect(); return { port, proc, dir }; } } catch { /* not yet */ }
    r.disconnect();
    await new Promise((res) => setTimeout(res, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`redis-server on ${port} did not answer`);
}

const server = await startRedisByHand();
after(() => { server.proc.kill('SIGKILL'); rmSync(server.dir, { recursive: true, force: true }); });
const endpoints = `redis=127.0.0.1:${server.port}`;

/** Keys that write commands touch (every command of a MONITOR stream that writes). */
const WRITES = new Set(['set', 'setnx', 'getset', 'del', 'unlink', 'expire', 'pexpire', 'incr', 'rpush', 'hset', 'hincrby', 'publish']);
function writtenKeys(args: string[]): string[] {
  const [cmd, ...rest] = args;
  const c = cmd!.toLowerCase();
  if (c === 'eval' || c === 'evalsha') return rest.slice(2, 2 + Number(rest[1]));
  return WRITES.has(c) ? [rest[0]!] : [];
}

test('external redis: a client pause breaks redis-set-px-del (exit 1); only the run\'s prefixed keys are written; replay from test.json', async () => {
  const before = lockpickProcesses();
  const base = new Redis({ port: server.port });
  const mon = await base.monitor();
  const keys: string[] = [];
  mon.on('monitor', (_t: string, args: string[]) => keys.push(...writtenKeys(args)));
  const store = tempStore();
  let r;
  try {
    r = await lockpick(['run', '--env', 'external', '--endpoints', endpoints, '--lock', 'redis-set-px-del', '--faults', 'client-pause',
      '--pause-at', 'in-critical-section', '--clients', '3', '--first-failure', '--time', '90', '--shrink-time', '5', '--store', store, '--json'], 240_000);
  } finally {
    mon.disconnect();
    base.disconnect();
  }
  assert.equal(r.code, 1, r.stderr);
  assert.ok(anomalyTypes(r).includes('double-holder'), `anomalies: ${anomalyTypes(r)}`);
  const s = r.summary!;
  // Keys: the default prefix, then the run id; the resource counter lives on lockpick's own Redis.
  assert.ok(keys.length > 0, 'the run wrote lock keys to the external server');
  const prefix = `lockpick:${s.runId}:`;
  assert.deepEqual(keys.filter((k) => !k.startsWith(prefix)), [], `every key written starts with ${prefix}`);
  assert.ok(!keys.some((k) => k.includes(':res:')), 'the resource counter is not on the external server');
  const t = JSON.parse(readFileSync(path.join(s.dir, 'test.json'), 'utf8'));
  assert.deepEqual(t.env, { kind: 'external', endpoints: [{ role: 'redis', host: '127.0.0.1', port: server.port }] });
  // The stored environment is rebuilt by --replay (no --endpoints needed).
  const again = await lockpick(['run', '--replay', s.dir, '--runs', '5', '--store', store, '--json'], 120_000);
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /REPRODUCED/);
  const left = [...lockpickProcesses()].filter((p) => !before.has(p));
  assert.deepEqual(left, [], 'no process of the runs is left');
});

test('external redis: server faults are refused up front with exit 2 naming the capability and the environment kind', async () => {
  for (const [fault, capability] of [['kill', 'kill'], ['pause', 'pause'], ['clock', 'clock']] as const) {
    const r = await lockpick(['run', '--env', 'external', '--endpoints', endpoints, '--lock', 'redis-set-px-del', '--faults', `client-pause,${fault}`, '--store', tempStore()], 30_000);
    assert.equal(r.code, 2, `${fault}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`needs '${capability}' \\(.+\\), which the external environment does not have`), r.stderr);
  }
  // The endpoints must fit the lock: redlock takes five masters.
  const r = await lockpick(['run', '--env', 'external', '--endpoints', endpoints, '--lock', 'redlock', '--store', tempStore()], 30_000);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /needs 5 redis= endpoint\(s\), got 1/);
});
