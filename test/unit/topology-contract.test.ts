// The topology contract (src/env/topology.ts), over every registered topology and over
// a throwaway `consul` topology defined here and never in the sources: if it passes the
// same checks and, registered by one push, is known to --endpoints, user-lock checks,
// the environment's data roles and the nemesis' role sets, then a new topology is one
// file plus one registry line (ARCHITECTURE.md "How to add each kind of part"). No servers.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { backendDataRoles, dataRoles, TOPOLOGY_DEFS, topologyDef, topologyNames } from '../../src/env/topologies.ts';
import { declared, EXPIRY_CLOCKS, onlyOptions, type TopologyDef } from '../../src/env/topology.ts';
import { endpointRoles, parseEndpoints } from '../../src/env/endpoints.ts';
import { LocalEnvironment, type ManagedNode } from '../../src/env/environment.ts';
import type { LinkTable } from '../../src/env/links.ts';
import type { Endpoint, TopologyOptions } from '../../src/env/types.ts';
import { recipeProblems } from '../../src/locks/user-lock.ts';
import { redisDataNodes } from '../../nemesis/roles.ts';
import { UsageError } from '../../src/errors.ts';
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { backendNames } from '../../src/env/topologies.ts';
import { imageProblem } from '../../src/env/docker-images-option.ts';
import { staleUnlockEffect } from '../../checkers/messages.ts';
import { currentLeader } from '../../nemesis/roles.ts';
import { resolveNodes } from '../../nemesis/targets.ts';
import { kindDef } from '../../nemesis/kinds.ts';
import type { FaultGenOptions } from '../../nemesis/fault.ts';
import type { NemesisContext } from '../../nemesis/types.ts';

const WORD = /^[a-z][a-z0-9-]*$/;
/** Words --endpoints keeps for itself: the environment's resource node and the Sentinel master name. */
const RESERVED_ENDPOINT_WORDS = ['resource', 'master'];

/**
 * The fields whose absence would change a verdict if a default stood in: the failure cause
 * (restartForgets, asyncFailover), the clock faults refused (expiryClock), the I/O points
 * (framing, nativeClient), the faults drawn (leader), the TTL floor and lease lag (timescales).
 */
const VERDICT_FIELDS = ['leased', 'expiryClock', 'restartForgets', 'asyncFailover', 'sessionEndsWithConnection', 'nativeClient', 'framing', 'leader', 'timescales'] as const;

/** What `t` breaks of the contract, one line per problem (empty = keeps it). */
function contractProblems(t: TopologyDef): string[] {
  const p: string[] = [];
  const need = (ok: unknown, what: string) => { if (!ok) p.push(`${t.name}: ${what}`); };
  need(WORD.test(t.name), `name '${t.name}' is a lower-case word`);
  need(typeof t.summary === 'string' && t.summary.trim().length > 0, 'summary is present');
  need(typeof t.backend === 'string' && WORD.test(t.backend), `backend '${t.backend}' is a non-empty word`);
  need(typeof t.leased === 'boolean', 'leased is true or false');
  // Every field that changes a verdict is declared, a field it has none of with why: a default would decide silently.
  for (const f of VERDICT_FIELDS) {
    const v: unknown = (t as unknown as Record<string, unknown>)[f];
    need(v !== undefined, `${f} is declared (it changes what lockpick concludes; where the topology has none: { none: 'why' })`);
    if (typeof v === 'object' && v !== null && 'none' in v) need(typeof v.none === 'string' && v.none.trim().length > 0, `${f}: { none } says why`);
  }
  need(EXPIRY_CLOCKS.includes(t.expiryClock), `expiryClock '${String(t.expiryClock)}' is one of ${EXPIRY_CLOCKS.join(', ')}`);
  need(['always', 'without-persistence', 'never'].includes(t.restartForgets), `restartForgets '${String(t.restartForgets)}' is always, without-persistence or never`);
  need(typeof t.asyncFailover === 'boolean' && typeof t.nativeClient === 'boolean' && typeof t.sessionEndsWithConnection === 'boolean', 'asyncFailover, nativeClient and sessionEndsWithConnection are true or false');
  need(!(t.sessionEndsWithConnection && t.leased), 'sessionEndsWithConnection belongs to a topology whose holds live in sessions (leased false)');
  need(declared(t.timescales) === undefined || typeof t.timescales === 'function', 'timescales is a function or { none }');
  need(declared(t.framing) === undefined || typeof t.framing === 'string', 'framing is a protocol word or { none }');
  // Persistence is an option, and a kill parameter, exactly where a restart forgets without it.
  need((t.restartForgets === 'without-persistence') === (t.options ?? []).includes('persistence'), "restartForgets 'without-persistence' goes with the option 'persistence', and only it");
  need(typeof t.start === 'function', 'start() is a function');
  need(typeof t.external === 'function', 'external() is a function');
  need(t.docker === undefined || typeof t.docker === 'function', 'docker() is absent or a function');
  need(t.clientExtras === undefined || typeof t.clientExtras === 'function', 'clientExtras() is absent or a function');
  // What the backend is, declared here rather than by name comparisons elsewhere.
  need(t.words === undefined || (typeof t.words.staleUnlock === 'function' && /process 7/.test(t.words.staleUnlock(7))), 'words.staleUnlock(victim) names the victim');
  const leader = declared(t.leader);
  need(leader === undefined || (typeof leader.find === 'function' && Number.isInteger(leader.minNodes) && leader.minNodes >= 1), 'leader has find() and a minNodes');
  for (const [kind, r] of Object.entries(t.images ?? {})) {
    need(WORD.test(kind) && typeof r.source === 'function' && typeof r.fill === 'function' && typeof r.dockerfile === 'function', `images.${kind} is a recipe (source, fill, dockerfile)`);
  }
  need(t.docker === undefined || Object.keys(t.images ?? {}).length > 0 || TOPOLOGY_DEFS.some((o) => o.backend === t.backend && o.images), 'docker() has an image recipe (its own images, or its backend\'s)');
  // Node roles: declared, words, each once, none the environment's own.
  const roles = [...(t.roles?.data ?? []), ...(t.roles?.other ?? [])];
  need((t.roles?.data.length ?? 0) > 0, 'roles.data names at least one role (what clients lock on)');
  need(roles.every((r) => WORD.test(r)), `roles are words (${roles.join(', ')})`);
  need(new Set(roles).size === roles.length, `roles are declared once (${roles.join(', ')})`);
  need(!roles.includes('resource'), "'resource' is the environment's role, not the topology's");
  // Endpoint roles: declared, words, each once, none reserved.
  const eps = (t.endpointRoles ?? []).map((e) => e.role);
  need(eps.length > 0, 'endpointRoles names at least one --endpoints role');
  need(eps.every((r) => WORD.test(r) && !RESERVED_ENDPOINT_WORDS.includes(r)), `endpoint roles are words, not ${RESERVED_ENDPOINT_WORDS.join(' or ')} (${eps.join(', ')})`);
  need(new Set(eps).size === eps.length, `endpoint roles are declared once (${eps.join(', ')})`);
  // external(): only declared words, sensible counts, every declared endpoint role used.
  const ext = t.external({});
  need(ext.length > 0, 'external({}) names the servers an external environment needs');
  for (const w of ext) {
    need(eps.includes(w.role), `external() role '${w.role}' is a declared endpoint role (${eps.join(', ')})`);
    need(roles.includes(w.as), `external() node role '${w.as}' is a declared node role (${roles.join(', ')})`);
    need(/^[a-z]+$/.test(w.prefix), `external() prefix '${w.prefix}' is letters`);
    need(Number.isInteger(w.min) && Number.isInteger(w.max) && w.min >= 1 && w.min <= w.max, `external() '${w.role}' counts 1 <= min <= max (${w.min}, ${w.max})`);
  }
  need(eps.every((r) => ext.some((w) => w.role === r)), 'every declared endpoint role is one external() asks for');
  // Options: the defaults and the resource node are fine, nonsense is a UsageError naming it.
  need(typeof t.validate === 'function', 'validate() is a function');
  if (typeof t.validate === 'function') {
    for (const ok of [{}, { resource: true }, { masters: undefined }]) {
      try { t.validate(ok); } catch (e) { p.push(`${t.name}: validate(${JSON.stringify(ok)}) threw ${(e as Error).message}`); }
    }
    for (const nonsense of [{ bogus: 1 }, { 'typo-nodez': 3 }]) {
      const name = Object.keys(nonsense)[0]!;
      try {
        t.validate(nonsense as TopologyOptions);
        p.push(`${t.name}: validate(${JSON.stringify(nonsense)}) accepted it`);
      } catch (e) {
        need(e instanceof UsageError && (e as Error).message.includes(`'${name}'`), `validate(${JSON.stringify(nonsense)}) throws a UsageError naming '${name}' (threw ${String(e)})`);
      }
    }
  }
  return p;
}

/** A topology no source file has: what ARCHITECTURE.md tells an author to write. */
const consul: TopologyDef = {
  name: 'consul',
  summary: 'an consul cluster of 1 or 3 members (a throwaway of this test)',
  backend: 'consul',
  packages: [],
  roles: { data: ['consul'] },
  endpointRoles: [{ role: 'consul' }],
  leased: true,
  expiryClock: 'unshimmable',
  restartForgets: 'never',
  sessionEndsWithConnection: false,
  asyncFailover: false,
  nativeClient: false,
  framing: { none: 'a throwaway of this test' },
  timescales: { none: 'a throwaway of this test' },
  validate(o) {
    onlyOptions('consul', o, ['members']);
    const m = o.members;
    if (m !== undefined && m !== 1 && m !== 3) throw new UsageError(`consul members must be 1 or 3, got ${String(m)}`);
  },
  start: async () => { throw new Error('a unit test starts no server'); },
  external: () => [{ role: 'consul', as: 'consul', prefix: 'n', min: 1, max: 3 }],
  words: { staleUnlock: (victim) => `the unlock deleted the lock key, which by then was process ${victim}'s` },
  leader: { minNodes: 3, find: async (env) => ({ leader: env.nodes.find((n) => n.id === 'n2'), said: 'n2 says leader' }) },
  images: { consul: { source: () => ['/bin/true'], fill: () => {}, dockerfile: () => ['CMD ["consul"]'] } },
};

/** Runs `f` with `def` registered (one push, as one line in TOPOLOGY_DEFS would), then takes it out. */
async function withRegistered<T>(def: TopologyDef, f: () => T | Promise<T>): Promise<T> {
  const defs = TOPOLOGY_DEFS as TopologyDef[];
  defs.push(def);
  try {
    return await f();
  } finally {
    defs.splice(defs.indexOf(def), 1);
  }
}

const recipe = (topology: unknown) => ({ name: 'x', summary: 's', source: 'test', topology, model: 'mutex', fencing: false, create: () => null });

test('every registered topology keeps the contract; names are unique', () => {
  // The built-ins are there; a new entry is welcome (never the exact list: one registry line adds one).
  const builtIn = { redis: 'redis', 'redis-sentinel': 'redis', zookeeper: 'zookeeper', mariadb: 'mysql', postgres: 'postgres', 'postgres-pgbouncer': 'postgres', etcd: 'etcd' };
  for (const [name, backend] of Object.entries(builtIn)) assert.equal(topologyDef(name)?.backend, backend, `${name} is registered, its backend word what histories always said`);
  assert.equal(new Set(topologyNames()).size, TOPOLOGY_DEFS.length, 'topology names are unique');
  for (const t of TOPOLOGY_DEFS) assert.deepEqual(contractProblems(t), [], t.name);
  const roles = endpointRoles().map((r) => r.role);
  for (const r of ['redis', 'sentinel', 'zookeeper', 'mysql', 'postgres', 'pgbouncer', 'etcd', 'resource']) assert.ok(roles.includes(r), `--endpoints takes ${r}`);
  assert.equal(roles.at(-1), 'resource', 'the environment\'s resource role comes last');
  for (const t of TOPOLOGY_DEFS) for (const r of t.endpointRoles) assert.ok(roles.includes(r.role), `${t.name}: --endpoints takes ${r.role}`);
  assert.deepEqual([...dataRoles('redis-sentinel')], ['redis', 'redis-replica']);
  assert.deepEqual([...dataRoles()].sort(), [...new Set(TOPOLOGY_DEFS.flatMap((t) => t.roles.data))].sort());
  for (const r of ['etcd', 'mariadb', 'pgbouncer', 'postgres', 'redis', 'redis-replica', 'zookeeper']) assert.ok(dataRoles().includes(r), r);
  assert.deepEqual(backendDataRoles('redis'), ['redis', 'redis-replica']);
});

test('the contract check can fail: a topology that breaks it is named for each break', () => {
  const broken = { ...consul, name: 'Consul', summary: ' ', backend: '', roles: { data: [], other: ['resource'] }, endpointRoles: [{ role: 'master' }],
    external: () => [{ role: 'etc', as: 'etc', prefix: 'n1', min: 2, max: 1 }], validate: () => {} } as TopologyDef;
  const p = contractProblems(broken).join('\n');
  for (const what of ['lower-case word', 'summary is present', 'backend', 'roles.data names', "'resource' is the environment's", 'not resource or master',
    "external() role 'etc'", "external() node role 'etc'", "prefix 'n1'", 'min <= max', 'every declared endpoint role', 'validate({"bogus":1}) accepted it']) {
    assert.ok(p.includes(what), `names '${what}' in:\n${p}`);
  }
});

test('a topology that leaves out a verdict-changing field, or says none without why, breaks the contract', () => {
  for (const f of VERDICT_FIELDS) {
    const half = { ...consul } as Record<string, unknown>;
    delete half[f];
    assert.ok(contractProblems(half as unknown as TopologyDef).some((l) => l.includes(`${f} is declared`)), `leaving out ${f} is named`);
  }
  const why = contractProblems({ ...consul, framing: { none: ' ' } });
  assert.ok(why.includes('consul: framing: { none } says why'), why.join('\n'));
  assert.ok(contractProblems({ ...consul, restartForgets: undefined as unknown as 'never' }).some((l) => l.includes('restartForgets is declared')));
});

test('each topology rejects options it does not take, naming them and what it takes', () => {
  assert.throws(() => topologyDef('zookeeper')!.validate!({ masters: 5 }), (e: unknown) => e instanceof UsageError && /zookeeper takes no option 'masters' \(it takes nodes\)/.test((e as Error).message));
  assert.throws(() => topologyDef('mariadb')!.validate!({ nodes: 3 }), /mariadb takes no option 'nodes' \(it takes none\)/);
  assert.throws(() => topologyDef('redis-sentinel')!.validate!({ masters: 3 }), /redis-sentinel takes no option 'masters' \(it takes persistence\)/);
  topologyDef('redis')!.validate!({ masters: 5, persistence: 'aof-always', resource: true });
});

test('a topology defined outside the sources keeps the same contract, and one registry entry makes it known everywhere', async () => {
  assert.deepEqual(contractProblems(consul), []);
  assert.throws(() => parseEndpoints('consul=h:2379'), /unknown role 'consul'/);
  assert.deepEqual(recipeProblems(recipe({ kind: 'consul', members: 3 })), [`topology: unknown topology 'consul'; registered: ${topologyNames().join(', ')}`]);
  await withRegistered(consul, async () => {
    assert.deepEqual(contractProblems(consul), []);
    // --endpoints takes its role, and says so in the format it prints.
    assert.deepEqual(parseEndpoints('consul=10.0.0.1:2379,consul=10.0.0.2:2379').endpoints.map((e) => e.role), ['consul', 'consul']);
    assert.throws(() => parseEndpoints('nomad=h:4646'), /unknown role 'nomad'; write it as ROLE=HOST:PORT \(roles: redis, sentinel, zookeeper, etcd, ([a-z-]+, )*consul, resource\)/);
    // A user lock may name it, its options checked by its own validate.
    assert.deepEqual(recipeProblems(recipe({ kind: 'consul', members: 3 })), []);
    assert.deepEqual(recipeProblems(recipe({ kind: 'consul', members: 2 })), ['topology: consul members must be 1 or 3, got 2']);
    assert.deepEqual(recipeProblems(recipe({ kind: 'consul', masters: 5 })), ["topology: consul takes no option 'masters' (it takes members)"]);
    // Its data role is what its environment hands clients (not the resource node); no Redis node for the nemesis.
    assert.deepEqual([...dataRoles('consul')], ['consul']);
    // Its words name stale unlocks; `lockpick check --backend consul` and run-start's backend know it.
    assert.match(staleUnlockEffect('consul', 4), /deleted the lock key, which by then was process 4's/);
    assert.ok(backendNames().includes('consul'));
    // --image takes its image kind; the nemesis draws 'leader' on 3 members (a lease topology: no session-anchored partition).
    assert.equal(imageProblem('consul', 'quay.io/coreos/consul:v3.4'), undefined);
    const gen = { topology: 'consul', nodes: ['n1', 'n2', 'n3'], clients: ['c1', 'c2'], ttlMs: 1000, points: [] } as unknown as FaultGenOptions;
    const drawn = fc.sample(kindDef('pause')!.generate(gen), { numRuns: 200, seed: 1 }).flat().map((f) => f.target);
    assert.ok(drawn.includes('leader'), 'leader drawn for a topology with a leader');
    const root = tempDir('lockpick-topo-');
    const links: LinkTable = { links: [], ensure: async (from: string, to: string, up: Endpoint) => ({ name: `${from}->${to}`, from, to, listen: { id: to, host: '127.0.0.1', port: up.port + 10_000 }, upstream: up }) } as unknown as LinkTable;
    const env = new LocalEnvironment('consul', root, links, undefined, undefined, dataRoles('consul'));
    const node = (id: string, role: string, port: number) => ({ id, role, port, logFile: '', pid: () => undefined, clockOffsetMs: () => 0, stop: async () => {} }) as unknown as ManagedNode;
    env.nodes.push(node('n1', 'consul', 2379), node('n2', 'consul', 2380), node('resource', 'resource', 6379));
    try {
      assert.deepEqual((await env.clientEndpoints('c1')).map((e) => [e.id, e.port]), [['n1', 12379], ['n2', 12380]]);
      assert.deepEqual(redisDataNodes(env), []);
      // Its leader, as its own find() says; the nemesis aims 'leader' at it and 'followers' at the rest.
      assert.equal((await currentLeader(env)).id, 'n2');
      const ctx = { env, clients: { ids: () => [] } } as unknown as NemesisContext;
      assert.deepEqual((await resolveNodes({ kind: 'pause', at_ms: 0, target: 'followers' }, ctx)).map((n) => n.id), ['n1']);
    } finally {
      await env.down();
      rmSync(root, { recursive: true, force: true });
    }
  });
  assert.equal(topologyDef('consul'), undefined, 'taken out again');
  assert.match(imageProblem('consul', 'x') ?? '', /takes images for redis, zookeeper, mariadb/);
  assert.match(staleUnlockEffect('consul', 4), /the unlock freed the lock, which by then was process 4's/);
});

test('a user lock naming an unregistered topology: exit 2 naming the registered ones; bad options of a known one likewise', () => {
  const dir = tempDir('lockpick-topo-cli-');
  const root = resolve(import.meta.dirname, '../..');
  try {
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    const lock = (name: string, topology: string) => {
      const p = join(dir, `${name}.ts`);
      writeFileSync(p, `export default { name: '${name}', summary: 's', source: 'test', topology: ${topology}, model: 'mutex', fencing: false, create() { return null; } };\n`);
      return spawnSync(process.execPath, [join(root, 'bin/lockpick.mjs'), 'run', '--lock', p, '--time', '5'], { encoding: 'utf8', cwd: dir, timeout: 60_000 });
    };
    const unknown = lock('consul-lock', "{ kind: 'consul', members: 3 }");
    assert.equal(unknown.status, 2, unknown.stderr);
    assert.match(unknown.stderr, /consul-lock\.ts: the default export .* is not a LockRecipe[^]*topology: unknown topology 'consul'; registered: /);
    assert.ok(unknown.stderr.includes(`registered: ${topologyNames().join(', ')}`), unknown.stderr);
    const typo = lock('zk-lock', "{ kind: 'zookeeper', nodes: 3, masters: 3 }");
    assert.equal(typo.status, 2, typo.stderr);
    assert.match(typo.stderr, /topology: zookeeper takes no option 'masters' \(it takes nodes\)/);
    assert.doesNotMatch(unknown.stderr + typo.stderr, /internal error/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Sources that still name a topology by design: aims drawn around one topology's structure, Sentinel's master name, redis-only remote docker, the redis masters check. */
const NAMES_A_TOPOLOGY = new Set(['src/workload/aims/sentinel-failover.ts',
  'src/env/external.ts', 'src/env/docker-start.ts', 'src/locks/user-lock.ts']);

test('no source outside a topology\'s own file compares a topology name or backend word (the TopologyDef declares what differs)', () => {
  const root = resolve(import.meta.dirname, '../..');
  const words = [...new Set([...topologyNames(), ...backendNames()])].map((w) => w.replace(/-/g, '\\-')).join('|');
  const compare = new RegExp(`\\b(topology|backend|name)\\b[^;\\n]{0,25}(===|!==)\\s*'(${words})'`);
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (rel.endsWith('.ts') && !/^src\/env\/topology-/.test(rel) && !NAMES_A_TOPOLOGY.has(rel)) {
        readFileSync(join(root, rel), 'utf8').split('\n').forEach((l, i) => { if (compare.test(l)) found.push(`${rel}:${i + 1}: ${l.trim()}`); });
      }
    }
  };
  for (const d of ['src', 'nemesis', 'checkers']) walk(d);
  assert.deepEqual(found, []);
  // The check can fail: the comparisons this replaced are caught.
  assert.ok(compare.test("o.topology === 'zookeeper' ? a : b") && compare.test("backend === 'redis'"));
});

test('a topology\'s framing names a protocol the fault proxy frames; a native client without one gets no I/O point', async () => {
  const { FRAMINGS } = await import('../../src/proxy/framing/index.ts');
  for (const def of TOPOLOGY_DEFS) {
    const framing = declared(def.framing);
    if (framing !== undefined) assert.ok(FRAMINGS.has(framing), `${def.name}: framing '${framing}' is not in src/proxy/framing/index.ts (${[...FRAMINGS.keys()].join(', ')})`);
  }
  const { proxyFraming } = await import('../../src/runner/proxy-points.ts');
  const { defaultPausePoints } = await import('../../src/workload/plan.ts');
  const recipe = { name: 'x', summary: 'x', source: 'x', topology: { kind: 'redis' }, model: 'mutex' as const, fencing: false, create: () => { throw new Error('unused'); } };
  assert.equal(proxyFraming(recipe, 'redis'), undefined, 'a Node client: the worker\'s hooks');
  assert.equal(proxyFraming({ ...recipe, ioPoints: 'proxy' }, 'redis'), 'resp');
  assert.equal(proxyFraming({ ...recipe, ioPoints: 'proxy' }, 'etcd'), 'http2', "etcd: gRPC's HTTP/2 frames");
  assert.equal(proxyFraming(recipe, 'etcd'), undefined, 'etcd clients in Node: the worker\'s HTTP/2 hook');
  assert.equal(proxyFraming(recipe, 'zookeeper'), 'zookeeper', 'a native client: the proxy\'s');
  assert.equal(proxyFraming({ ...recipe, ioPoints: 'hooks' }, 'zookeeper'), undefined);
  assert.deepEqual(defaultPausePoints([], 'zookeeper', true), ['in-critical-section', 'before-write', 'before-release', 'send']);
});
