// `lockpick list`: the lock recipes and fault kinds, one line each.
import { parseCommandArgs } from './args.ts';
import { EXIT, EXIT_HELP } from '../errors.ts';
import { SHAPE_SUMMARY } from '../../nemesis/grudge.ts';

const USAGE = `usage: lockpick list [--json]

Prints the lock recipes (for --lock) and the fault kinds (for --faults) with
one-line descriptions, and which capabilities each environment kind (--env) has.

${EXIT_HELP}`;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('list', USAGE, argv, { json: { type: 'boolean' } });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const { RECIPES } = await import('../locks/registry.ts');
  const { FAULT_KINDS, FAULT_ALIASES } = await import('../../nemesis/index.ts');
  const { AIMS } = await import('../workload/aims.ts');
  const { aimKindWords } = await import('../workload/aim.ts');
  const { ENV_KINDS, capabilityCell, capabilityTable } = await import('../env/env-kinds.ts');
  const { CAPABILITIES } = await import('../env/capabilities.ts');
  if (values.json) {
    console.log(JSON.stringify({
      locks: RECIPES.map((r) => ({ name: r.name, summary: r.summary, source: r.source, topology: r.topology, model: r.model, fencing: r.fencing, points: r.points ?? [], options: r.optionsHelp ?? {} })),
      faults: FAULT_KINDS,
      aims: AIMS.map((a) => ({ name: a.name, kinds: a.kinds.map(aimKindWords), summary: a.summary })),
      capabilities: CAPABILITIES,
      environments: ENV_KINDS.map((k) => ({ name: k.name, summary: k.summary, capabilities: Object.fromEntries(Object.keys(CAPABILITIES).map((c) => [c, capabilityCell(k, c as keyof typeof CAPABILITIES)])) })),
    }, null, 2));
    return EXIT.ok;
  }
  const w = Math.max(...RECIPES.map((r) => r.name.length), ...FAULT_KINDS.map((k) => k.kind.length));
  const out = ["locks (--lock NAME, --lock ./your-module.ts, or a process client in any language: --lock exec:'CMD' or --lock ./recipe.json, docs/process-clients.md):"];
  for (const r of RECIPES) {
    out.push(`  ${r.name.padEnd(w)}  ${r.summary}`);
    if (r.points?.length) out.push(`  ${''.padEnd(w)}  pause points: ${r.points.join(', ')}`);
    const opts = Object.entries(r.optionsHelp ?? {});
    if (opts.length) out.push(`  ${''.padEnd(w)}  options: ${opts.map(([k, v]) => `${k} (${v})`).join('; ')}`);
  }
  out.push('', `faults (--faults KIND,KIND; aliases: ${Object.entries(FAULT_ALIASES).map(([a, k]) => `${a}=${k}`).join(', ')}):`);
  for (const k of FAULT_KINDS) out.push(`  ${k.kind.padEnd(w)}  ${k.summary}`);
  out.push('', 'aimed plans (when --faults includes all their kinds, one of each a | b, and the topology fits, two plans in three are drawn around them,',
    "one in two for those marked 'half': the rest stay uniformly random):");
  for (const a of AIMS) out.push(`  ${a.name}  (${a.kinds.map(aimKindWords).join(' + ')}${(a.weight ?? 2) < 2 ? ', half' : ''}) ${a.summary}`);
  out.push('', 'partition shapes (drawn by partition over every server and client of the topology; target "grudge", params.grudge says who cannot reach whom):',
    ...Object.entries(SHAPE_SUMMARY).map(([k, v]) => `  ${k.padEnd(16)} ${v}`),
    '  each client then joins a side, or reaches only k of the n servers (a minority; a bare majority; any k), or everything:',
    '  on 5 Redlock masters, e.g. "c1 reaches only n2,n4; c2 reaches only n1,n5": two clients with 2 votes each.');
  out.push('', "environment kinds (--env KIND) and their capabilities (a fault kind's 'needs' in 'lockpick list --json'):", ...capabilityTable());
  out.push('', "client-pause in 'lockpick run' lands at named points: 'in-critical-section', 'before-write' (after the careful client's last look at its validity), each lock's own points, and at the client's I/O",
    "('send': just before a command of its acquire or release, 'reply': just after a reply; a client no hook sees, such as zookeeper locks: 'send' only, held by the fault proxy), for about the lease.");
  console.log(out.join('\n'));
  return EXIT.ok;
}
