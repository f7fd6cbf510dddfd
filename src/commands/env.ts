// `lockpick env up TOPOLOGY [--masters N] [--nodes N] [--persistence P] [--resource] [--json]
//   [--env local|docker|external] [--image ROLE=IMAGE] [--endpoints LIST]`
//   brings a topology up in an environment kind, prints its endpoints and stays up until Ctrl-C / SIGTERM.
// `lockpick env down` stops every running `env up` and any leftovers (pid files).
import { parseCommandArgs } from './args.ts';
import { exitCodeOnSignal, recordProcess } from '../env/lifecycle.ts';
import { stopEnvUps, validateTopology, type TopologyName, type TopologyOptions } from '../env/index.ts';
import { startEnv, type EnvSpec } from '../env/env-kinds.ts';
import { parseEnv } from '../options.ts';
import { TOPOLOGY_DEFS } from '../env/topologies.ts';
import { EXIT, EXIT_HELP, InconclusiveError, UsageError } from '../errors.ts';

const USAGE = `usage: lockpick env up TOPOLOGY [--masters N] [--nodes N] [--members N] [--persistence none|aof-always] [--resource] [--json]
                        [--env local|docker|external] [--image ROLE=IMAGE] [--endpoints LIST]
       lockpick env down

  up     start real servers on 127.0.0.1, every link through the fault proxy; print
         endpoints; stay up until Ctrl-C or SIGTERM. Topologies:
${TOPOLOGY_DEFS.map((t) => `           ${t.name.padEnd(15)} ${t.summary}`).join('\n')}
  down   stop every running 'env up' and whatever a killed lockpick left behind

  --masters N      redis: independent masters, 1..7 (default 1)
  --nodes N        zookeeper: ensemble size, 1 or 3 (default 3)
  --members N      etcd: cluster size, 1 or 3 (default 3)
  --persistence P  redis: none (default) or aof-always (appendfsync always)
  --resource       also start a fault-free Redis node for the protected resource
  --json           print one JSON object instead of text
  --env KIND       local (default), docker (containers, labelled lockpick=1; removed on
                   Ctrl-C and by 'env down') or external (your servers behind the fault proxy)
  --image R=IMAGE  --env docker: the server image, as 'lockpick run' takes it
  --endpoints LIST --env external: your servers, as 'lockpick run' takes them

${EXIT_HELP}
env up: 2 on bad options, 3 when the servers fail to start; 0 when stopped by SIGTERM or SIGHUP (lockpick env down), 130 by Ctrl-C`;

/** The options of every registered topology (redis masters, zookeeper nodes, etcd members, ...). */
const TOPOLOGY_OPTIONS = [...new Set(TOPOLOGY_DEFS.flatMap((t) => t.options ?? []))];

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('env', USAGE, argv, {
    // Every option a registered topology takes is a flag (TopologyDef.options); its validate judges the value.
    ...Object.fromEntries(TOPOLOGY_OPTIONS.map((name) => [name, { type: 'string' as const }])),
    resource: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    env: { type: 'string' },
    image: { type: 'string' },
    endpoints: { type: 'string' },
  }, true);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [action, topology, ...extra] = positionals;
  if (action === 'down' && !topology) {
    const n = await stopEnvUps((m) => console.log(m));
    console.log(n === 0 ? 'lockpick env down: nothing was running' : `lockpick env down: stopped ${n}`);
    return EXIT.ok;
  }
  if (action !== 'up' || !topology || extra.length > 0) {
    console.error(`lockpick env: expected 'up TOPOLOGY' or 'down'\n\n${USAGE}`);
    return EXIT.usage;
  }
  let opts: TopologyOptions;
  let spec: EnvSpec | undefined;
  try {
    spec = await parseEnv(values.env, values.endpoints, false, values.image);
    // A number where the value is one (masters, nodes, members), the word otherwise (persistence).
    const given = values as Record<string, string | boolean | undefined>;
    opts = { resource: values.resource };
    for (const name of TOPOLOGY_OPTIONS) {
      const v = given[name];
      if (typeof v === 'string') opts[name] = /^\d+$/.test(v) ? Number(v) : v;
    }
    validateTopology(topology as TopologyName, opts);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`lockpick env up: ${e.message}\n  fix: see 'lockpick env --help'`);
    return EXIT.usage;
  }
  // Before the servers start: a stop asked for while they come up (SIGTERM, SIGHUP) is 0 too.
  exitCodeOnSignal((sig) => (sig === 'SIGINT' ? 130 : 0));
  let env;
  const kind = spec?.kind ?? 'local';
  try {
    env = await startEnv(spec, topology as TopologyName, opts);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`lockpick env up: ${e.message}`);
      return EXIT.usage;
    }
    if (!(e instanceof InconclusiveError)) throw e;
    // Not a verdict and not a usage error: no test is possible here (exit 3).
    const fix = kind === 'docker' ? 'a Docker engine must answer (docker info; DOCKER_HOST)'
      : kind === 'external' ? 'the --endpoints servers must answer from here'
        : 'make the servers startable here (bash scripts/setup.sh installs them)';
    console.error(`lockpick env up: ${e.message}\n  fix: ${fix}; 'lockpick env down' stops what an earlier run left`);
    return EXIT.unknown;
  }
  recordProcess({ pid: process.pid, name: `lockpick env up ${topology}`, kind: 'env-up', match: 'env' });
  const clients = await env.clientEndpoints('c1');
  const sentinels = env.sentinelEndpoints && env.nodes.some((n) => n.role === 'sentinel') ? await env.sentinelEndpoints('c1') : [];
  const nodes = env.nodes.map((n) => ({ id: n.id, role: n.role, host: n.host ?? '127.0.0.1', port: n.port, pid: n.pid(), log: n.logFile }));
  if (values.json) {
    console.log(JSON.stringify({ topology, env: kind, proxyUrl: env.proxyUrl, sentinelName: env.sentinelName, nodes, clientEndpoints: clients, sentinelEndpoints: sentinels, links: env.links }));
  } else {
    console.log(`lockpick env up ${topology} (--env ${kind}): ready`);
    console.log(`  fault proxy (Toxiproxy API): ${env.proxyUrl}`);
    // A container or an external server has no pid or log here.
    for (const n of nodes) console.log(`  ${n.id.padEnd(9)} ${n.role.padEnd(14)} ${n.host}:${n.port}${n.pid ? `  pid ${n.pid}` : ''}${n.log ? `  log ${n.log}` : ''}`);
    console.log(`  client c1 endpoints (proxied): ${clients.map((e) => `${e.id}=${e.host}:${e.port}`).join('  ')}`);
    if (sentinels.length) console.log(`  sentinels for c1 (proxied, master '${env.sentinelName}'): ${sentinels.map((e) => `${e.id}=${e.host}:${e.port}`).join('  ')}`);
    console.log(`  ${env.links.length} links through the proxy; Ctrl-C (or 'lockpick env down') stops everything`);
  }
  // Stay up; the lifecycle's signal handlers tear everything down and exit: a stop asked
  // for (SIGTERM, SIGHUP: 'lockpick env down') is the normal end (0), Ctrl-C says 130.
  await new Promise<never>(() => setInterval(() => {}, 1 << 30));
  return 0;
}
