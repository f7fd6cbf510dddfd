// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// --env external with the user's own Toxiproxy (TOXIPROXY_URL): a server link the
// user routes through a proxy named as lockpick names its links ('n2->n1': from
// node n2 to node n1) becomes a node link of the run, so a partition between the
// servers cuts it. Here `lockpick proxy` stands for the user's Toxiproxy, and a
// Redis primary, a replica replicating through the proxy 'n2->n1' and a Sentinel
// are started by hand. Without such a proxy the same plan exits 2 naming 'node-link'.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Toxiproxy } from 'toxiproxy-node-client';
import { freePort } from '../../src/env/ports.ts';
import { bin, lockpick, repoRoot, tempStore } from './run-helpers.ts';

const children: ChildProcess[] = [];
const dirs: string[] = [];
after(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'external-links-'));
  dirs.push(d);
  return d;
}

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One command to a server, on a fresh connection (no retries: a down server answers undefined). */
async function ask(port: number, ...cmd: string[]): Promise<unknown> {
  const r = new Redis({ port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 1000, commandTimeout: 1000 });
  r.on('error', () => {});
  try {
    await r.connect();
    return await r.call(cmd[0]!, ...cmd.slice(1));
  } finally {
    r.disconnect();
  }
}

async function redisByHand(args: string[], probe: string[] = ['PING']): Promise<number> {
  const dir = tempDir();
  const port = await freePort();
  let conf: string[] = [];
  if (args[0] === '--sentinel') {
    // Sentinel rewrites its config file: it must be a file of its own.
    const file = path.join(dir, 'sentinel.conf');
    writeFileSync(file, `port ${port}\nbind 127.0.0.1\ndir ${dir}\n${args.slice(1).join('\n')}\n`);
    conf = [file, '--sentinel'];
  } else {
    conf = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...args];
  }
  children.push(spawn('redis-server', conf, { stdio: 'ignore' }));
  await until(`redis-server ${args.join(' ')} on ${port}`, async () => (await ask(port, ...probe)) ?? undefined);
  return port;
}

const linkUp = async (replica: number): Promise<boolean> => /master_link_status:up/.test(String(await ask(replica, 'INFO', 'replication').catch(() => '')));

// The user's Toxiproxy (lockpick's own server speaks the same API).
const proxyChild = spawn(process.execPath, [bin, 'proxy', '--port', '0'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
children.push(proxyChild);
const url = await new Promise<string>((resolve, reject) => {
  let out = '';
  proxyChild.stdout!.on('data', (d) => { out += d; const m = /"url":\s*"([^"]+)"/.exec(out); if (m) resolve(m[1]!); });
  proxyChild.once('exit', (c) => reject(new Error(`lockpick proxy exited (${c}): ${out}`)));
});
const tp = new Toxiproxy(url);
const primary = await redisByHand([]);
const linkPort = await freePort();
await tp.createProxy({ name: 'n2->n1', listen: `127.0.0.1:${linkPort}`, upstream: `127.0.0.1:${primary}` });
const replica = await redisByHand(['--replicaof', '127.0.0.1', String(linkPort)]);
const sentinel = await redisByHand(['--sentinel', `sentinel monitor mymaster 127.0.0.1 ${primary} 1`, 'sentinel down-after-milliseconds mymaster 60000'],
  ['SENTINEL', 'get-master-addr-by-name', 'mymaster']);
await until('replication through n2->n1', async () => ((await linkUp(replica)) ? true : undefined));
const endpoints = `redis=127.0.0.1:${primary},redis=127.0.0.1:${replica},sentinel=127.0.0.1:${sentinel},master=mymaster`;

/** A stored plan: two clients taking turns on one key for ~3 s while the replication link is cut from 300 ms to 2300 ms. */
function planDir(target: string | string[] = 'primary-replicas'): string {
  const dir = tempDir();
  const attempts = (delayMs: number) => [0, 1].map((i) => ({ key: 'k0', delayMs: i === 0 ? delayMs : 200, waitMs: 1500, holdMs: 600, renew: false }));
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    lock: 'redis-sentinel', lock_spec: { name: 'redis-sentinel' }, property: 'both', lock_options: {},
    plan: { ttlMs: 2000, clients: [{ attempts: attempts(0) }, { attempts: attempts(100) }], faults: [{ kind: 'partition', at_ms: 300, duration_ms: 2000, target }] },
    env: { kind: 'external' }, key_prefix: null,
  }));
  return dir;
}

/** The nemesis events of a run's history. */
function nemesisEvents(runDir: string): { f: string; value: { links?: string[]; shape?: string } }[] {
  return readFileSync(path.join(runDir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean)
    .map((l) => JSON.parse(l) as { process: unknown; f: string; value: { links?: string[]; shape?: string } }).filter((e) => e.process === 'nemesis');
}

function replay(dir: string, toxiproxyUrl: string | undefined) {
  const saved = process.env.TOXIPROXY_URL;
  if (toxiproxyUrl === undefined) delete process.env.TOXIPROXY_URL;
  else process.env.TOXIPROXY_URL = toxiproxyUrl;
  try {
    return lockpick(['run', '--replay', dir, '--endpoints', endpoints, '--runs', '1', '--store', tempStore(), '--json'], 120_000);
  } finally {
    if (saved === undefined) delete process.env.TOXIPROXY_URL;
    else process.env.TOXIPROXY_URL = saved;
  }
}

test("TOXIPROXY_URL: a partition between the servers cuts the user's proxy n2->n1; replication stops meanwhile; the proxy is left as found", async () => {
  // A client link a kill -9'd run left behind: removed at the start, or this run could not make its own.
  await tp.createProxy({ name: 'client:c1->n1', listen: '127.0.0.1:0', upstream: `127.0.0.1:${primary}` });
  let cut = false;
  let down = false;
  let watching = true;
  // Watch the user's side while lockpick runs: the proxy's state and the replica's link.
  const watcher = (async () => {
    while (watching) {
      if (!(await tp.get('n2->n1')).enabled) cut = true;
      if (!(await linkUp(replica))) down = true;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const r = await replay(planDir(), url).finally(() => { watching = false; });
  await watcher;
  assert.ok([0, 3].includes(r.code!), `a replication cut does not break a lock taken on the primary (exit ${r.code}): ${r.stderr}`);
  assert.match(r.stderr, /removed 1 leftover client-link proxies from TOXIPROXY_URL \S+ \(client:c1->n1\)/);
  const events = nemesisEvents(r.summary!.dir);
  const start = events.find((e) => e.f === 'partition-start');
  assert.ok(start, `a partition-start event (nemesis events: ${events.map((e) => e.f).join(', ')})`);
  assert.deepEqual(start.value.links, ['n2->n1']);
  assert.equal(start.value.shape, 'primary n1 | replicas n2');
  assert.ok(events.some((e) => e.f === 'partition-stop'), 'healed');
  assert.ok(!events.some((e) => e.f === 'fault-not-applied'), 'the cut took effect while the clients ran');
  assert.ok(cut, "the user's proxy n2->n1 was disabled during the run");
  assert.ok(down, "the replica's link to the primary went down during the run");
  // Left as found: the server link enabled and replicating again, lockpick's client links gone.
  assert.deepEqual(Object.keys(await tp.getAll()), ['n2->n1']);
  assert.equal((await tp.get('n2->n1')).enabled, true);
  await until('replication back', async () => ((await linkUp(replica)) ? true : undefined));
});

test('isolating a server (the targets --faults partition draws) cuts its server links as well as its client links', async () => {
  const r = await replay(planDir('n2'), url);
  assert.ok([0, 3].includes(r.code!), r.stderr);
  const start = nemesisEvents(r.summary!.dir).find((e) => e.f === 'partition-start');
  assert.ok(start?.value.links?.includes('n2->n1'), `the replication link is cut (links: ${start?.value.links?.join(', ')})`);
  assert.ok(start!.value.links!.some((l) => /^client:c\d+->n2$/.test(l)), 'and the clients\' links to n2');
  assert.deepEqual(Object.keys(await tp.getAll()), ['n2->n1']);
});

test("without such a proxy the same plan exits 2 naming 'node-link': TOXIPROXY_URL unset, no proxy named for a server link, or one naming an unknown node", async () => {
  const dir = planDir();
  const unset = await replay(dir, undefined);
  assert.equal(unset.code, 2, unset.stderr);
  assert.match(unset.stderr, /fault 'partition' needs 'node-link' \(.+\), which the external environment does not have.*set TOXIPROXY_URL/);

  const link = await tp.get('n2->n1');
  await link.remove();
  try {
    const none = await replay(dir, url);
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /need 'node-link' .*TOXIPROXY_URL \S+ has no proxy named for a link between its servers \(n1, n2, s1\)/);
    await tp.createProxy({ name: 'n3->n1', listen: '127.0.0.1:0', upstream: `127.0.0.1:${primary}` });
    const typo = await replay(dir, url);
    assert.equal(typo.code, 2, typo.stderr);
    assert.match(typo.stderr, /proxy 'n3->n1' names node n3, which this environment does not have \(nodes in --endpoints order: n1, n2, s1\)/);
    await (await tp.get('n3->n1')).remove();
  } finally {
    await tp.createProxy({ name: 'n2->n1', listen: `127.0.0.1:${linkPort}`, upstream: `127.0.0.1:${primary}` });
  }
});
