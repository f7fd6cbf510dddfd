// Environment kinds, external endpoints and the topology registry, without servers:
// what the user types is parsed or refused in words (exit 2), what test.json keeps
// has no password, and a stored plan with a fault its environment lacks is refused.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEndpoints, redactEndpoints, storedEndpoints } from '../../src/env/endpoints.ts';
import { checkExternalServers } from '../../src/env/external.ts';
import { ENV_KINDS, EXTERNAL, LOCAL, envKind } from '../../src/env/env-kinds.ts';
import { ALL_CAPABILITIES } from '../../src/env/capabilities.ts';
import { TOPOLOGY_DEFS, topologyDef } from '../../src/env/topologies.ts';
import { TOPOLOGIES, validateTopology } from '../../src/env/index.ts';
import { envFromTest, envJson, keyNamespace } from '../../src/runner/env-spec.ts';
import { UsageError } from '../../src/errors.ts';
import { KINDS, capabilityProblem } from '../../nemesis/kinds.ts';

const usage = (re: RegExp) => (e: unknown) => e instanceof UsageError && re.test(e.message);

test('--endpoints: roles, MySQL logins and master names parse; a file holds the same', () => {
  const s = parseEndpoints('redis=127.0.0.1:6379, redis=[::1]:6380,mysql=locker:p@ss:w@db.local:3306/locks,sentinel=s:26379,master=mymaster,resource=10.0.0.6:6379');
  assert.deepEqual(s.endpoints.map((e) => `${e.role} ${e.host} ${e.port}`), ['redis 127.0.0.1 6379', 'redis ::1 6380', 'mysql db.local 3306', 'sentinel s 26379', 'resource 10.0.0.6 6379']);
  assert.deepEqual(s.endpoints[2], { role: 'mysql', user: 'locker', password: 'p@ss:w', host: 'db.local', port: 3306, database: 'locks' });
  assert.equal(s.master, 'mymaster');
  const dir = tempDir('endpoints-');
  const file = path.join(dir, 'e.json');
  writeFileSync(file, JSON.stringify({ endpoints: ['zookeeper=zk1:2181', { role: 'zookeeper', host: 'zk2', port: 2181 }] }));
  assert.deepEqual(parseEndpoints(file).endpoints.map((e) => e.host), ['zk1', 'zk2']);
});

test('--endpoints: a bad entry is refused naming it and the format', () => {
  assert.throws(() => parseEndpoints('redis=localhost'), usage(/'redis=localhost': 'localhost' is not HOST:PORT; write it as ROLE=HOST:PORT/));
  assert.throws(() => parseEndpoints('consul=h:8500'), usage(/unknown role 'consul'/));
  assert.throws(() => parseEndpoints('redis=h:70000'), usage(/port 70000 is out of range/));
  assert.throws(() => parseEndpoints('mysql=h:3306'), usage(/is not USER:PASSWORD@HOST:PORT\/DATABASE/));
  assert.throws(() => parseEndpoints(' , '), usage(/names no server/));
  assert.throws(() => parseEndpoints('/nonexistent/e.json'), usage(/cannot read it as JSON/));
});

test('the endpoints must fit the lock\'s topology', () => {
  const one = parseEndpoints('redis=h:1');
  checkExternalServers('redis', { masters: 1 }, one);
  assert.throws(() => checkExternalServers('redis', { masters: 5 }, one), usage(/needs 5 redis= endpoint\(s\), got 1/));
  assert.throws(() => checkExternalServers('zookeeper', {}, one), usage(/needs 1 to 9 zookeeper= endpoint\(s\), got 0/));
  assert.throws(() => checkExternalServers('redis', {}, parseEndpoints('redis=h:1,zookeeper=z:2')), usage(/zookeeper=z:2 is not used by a redis lock/));
  assert.throws(() => checkExternalServers('redis-sentinel', {}, parseEndpoints('redis=h:1,sentinel=s:2')), usage(/needs master=NAME/));
  checkExternalServers('redis-sentinel', {}, parseEndpoints('redis=h:1,sentinel=s:2,master=m'));
  checkExternalServers('mariadb', {}, parseEndpoints('mysql=u:p@h:3306/d,resource=r:6379'));
});

test('test.json keeps the environment without a password; a replay needs it again', () => {
  const servers = parseEndpoints('mysql=u:secret@h:3306/d');
  const j = envJson({ kind: 'external', servers }, undefined);
  assert.ok(!JSON.stringify(j).includes('secret'));
  assert.deepEqual(redactEndpoints(servers).endpoints[0], { role: 'mysql', user: 'u', host: 'h', port: 3306, database: 'd' });
  assert.throws(() => storedEndpoints(j.env, 'DIR/test.json'), usage(/the MySQL password is not stored; give --endpoints/));
  const redis = envJson({ kind: 'external', servers: parseEndpoints('redis=h:1') }, 'team-a:');
  const plan = { ttlMs: 800, clients: [], faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 900, target: 'c1' }] };
  const back = envFromTest(redis as never, 'DIR/test.json', plan as never);
  assert.deepEqual(back, { env: { kind: 'external', servers: { endpoints: [{ role: 'redis', host: 'h', port: 1 }] } }, keyPrefix: 'team-a:' });
  // A plan with a server fault cannot be replayed on the external servers.
  const killing = { ...plan, faults: [{ kind: 'kill', at_ms: 0, duration_ms: 10, target: 'n1', params: { persistence: 'none' } }] };
  assert.throws(() => envFromTest(redis as never, 'DIR/test.json', killing as never), usage(/the plan's fault 'kill' needs 'kill' .* and 'restart-persistence'/));
  // An old test.json has no env: local.
  assert.equal(envFromTest({}, 'DIR/test.json', killing as never).env.kind, 'local');
});

test('keys: the prefix and the run id on an external server; unchanged locally unless asked', () => {
  assert.equal(keyNamespace({ kind: 'external' }, undefined, 'RUN'), 'lockpick:RUN:');
  assert.equal(keyNamespace({ kind: 'external' }, 'team-a/', 'RUN'), 'team-a/RUN:');
  assert.equal(keyNamespace(undefined, undefined, 'RUN'), '');
  assert.equal(keyNamespace({ kind: 'local' }, 'x:', 'RUN'), 'x:RUN:');
});

test('environment kinds: local can do everything, external only the client side; every fault kind runs locally', () => {
  for (const k of ['local', 'external', 'docker']) assert.ok(envKind(k), `${k} is registered`);
  assert.equal(new Set(ENV_KINDS.map((k) => k.name)).size, ENV_KINDS.length, 'names are unique');
  assert.deepEqual([...LOCAL.capabilities].sort(), [...ALL_CAPABILITIES].sort());
  assert.deepEqual([...EXTERNAL.capabilities].sort(), ['client-link', 'client-process', 'session-end']);
  assert.equal(envKind('kubernetes'), undefined);
  const onExternal = KINDS.map((k) => k.schema.kind).filter((k) => !capabilityProblem(k, EXTERNAL));
  for (const k of ['partition', 'latency', 'client-pause', 'client-clock', 'client-kill', 'session-kill', 'keepalive-cut']) assert.ok(onExternal.includes(k), k);
  // Whatever else runs there needs nothing but what the external kind has (a new kind is judged by its needs, not listed).
  for (const k of onExternal) for (const c of KINDS.find((d) => d.schema.kind === k)!.needs) assert.ok([...EXTERNAL.capabilities].includes(c), `${k} needs ${c}`);
  for (const k of ['pause', 'kill', 'clock-bump', 'failover']) assert.ok(!onExternal.includes(k), k);
});

test('topology registry: one entry per topology, each validates its own options and names its external servers', () => {
  assert.deepEqual([...TOPOLOGIES], TOPOLOGY_DEFS.map((t) => t.name));
  for (const t of TOPOLOGY_DEFS) {
    assert.ok(t.summary.length > 0 && /^[a-z][a-z0-9-]*$/.test(t.backend), t.name);
    assert.ok(t.external({}).length > 0, `${t.name} names its external servers`);
  }
  assert.equal(topologyDef('redis')!.leased, true);
  assert.equal(topologyDef('zookeeper')!.leased, false);
  assert.throws(() => validateTopology('redis', { masters: 9 }), usage(/masters must be an integer from 1 to 7, got 9/));
  assert.throws(() => validateTopology('zookeeper', { nodes: 2 }), usage(/zookeeper nodes must be 1 or 3, got 2/));
  assert.throws(() => validateTopology('consul', {}), (e: unknown) => e instanceof UsageError && (e as Error).message.includes(`unknown topology 'consul'; use one of: ${TOPOLOGY_DEFS.map((t) => t.name).join(', ')}`));
});

test('a fault its environment cannot inject is refused when created, before anything is touched', async () => {
  const { createFault, FaultSpecError } = await import('../../nemesis/index.ts');
  const touched: string[] = [];
  const node = { id: 'n1', role: 'redis', port: 1, logFile: '', pid: () => undefined, clockOffsetMs: () => 0,
    pause: async () => { touched.push('pause'); }, resume: async () => {}, kill: async () => { touched.push('kill'); }, restart: async () => {}, setClockOffsetMs: async () => {} };
  const env = { topology: 'redis', envKind: EXTERNAL, nodes: [node], links: [], proxyUrl: '', node: () => node, clientEndpoints: async () => [], down: async () => {} };
  const ctx = { env, clients: { ids: () => ['c1'], pause: async () => {}, resume: async () => {}, setClockOffsetMs: async () => {}, kill: async () => {} }, record: () => {} };
  assert.throws(() => createFault({ kind: 'kill', at_ms: 0, target: 'n1' }, ctx as never), (e: unknown) => e instanceof FaultSpecError && /fault 'kill' needs 'kill' .* which the external environment does not have/.test((e as Error).message));
  assert.throws(() => createFault({ kind: 'pause', at_ms: 0, duration_ms: 10, target: 'n1' }, ctx as never), FaultSpecError);
  assert.deepEqual(touched, []);
  // Client-side kinds are made as usual.
  assert.equal(createFault({ kind: 'client-pause', at_ms: 0, duration_ms: 10, target: 'c1' }, ctx as never).kind, 'client-pause');
});
