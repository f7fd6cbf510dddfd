// Environment kinds: where the servers come from, and what lockpick can do to
// them. One entry per kind; `lockpick run --env NAME` picks one.
import { ALL_CAPABILITIES, CAPABILITIES, type Capability } from './capabilities.ts';
import type { Environment, TopologyName, TopologyOptions } from './types.ts';
import type { ExternalServers } from './endpoints.ts';
import { DOCKER } from './docker-kind.ts';

/** Which environment a run uses (stored in test.json, so a replay rebuilds it). */
export interface EnvSpec {
  kind: string;
  servers?: ExternalServers;
  /** Capabilities the run's faults need that only the user's setup gives (EnvKindDef.setup): checked when the environment starts (not stored). */
  needs?: Capability[];
}

export interface EnvKindDef {
  name: string;
  summary: string;
  capabilities: readonly Capability[];
  /**
   * Capabilities the user's setup may add (external: 'node-link' through their Toxiproxy),
   * certain only once the environment starts and sees it; `present` says whether the setup is
   * there at all (TOXIPROXY_URL set), `label` names it in the table, `hint` says how to get it.
   */
  setup?: { capabilities: readonly Capability[]; present(): boolean; label: string; hint: string };
  /** Brings up `topology` (UsageError for bad input, InconclusiveError when it cannot start). */
  start?(topology: TopologyName, o: TopologyOptions, spec: EnvSpec): Promise<Environment>;
}

export const LOCAL: EnvKindDef = {
  name: 'local',
  summary: 'servers from the OS packages on this machine, on 127.0.0.1, started and stopped by lockpick',
  capabilities: ALL_CAPABILITIES,
  start: async (topology, o) => (await import('./index.ts')).startEnvironment(topology, o),
};

export const EXTERNAL: EnvKindDef = {
  name: 'external',
  summary: "the user's own servers (--endpoints); lockpick's fault proxy sits between its clients and them",
  // Only what happens on lockpick's side: its clients, and the client links through its proxy;
  // plus server links the user routes through the Toxiproxy of TOXIPROXY_URL (external.ts);
  // and ending its own clients' sessions (a login may end sessions of its own user).
  capabilities: ['client-process', 'client-link', 'session-end'],
  setup: {
    capabilities: ['node-link'],
    present: () => Boolean(process.env.TOXIPROXY_URL),
    label: 'TOXIPROXY_URL',
    hint: "'node-link' on --env external: set TOXIPROXY_URL to your Toxiproxy, with a proxy per server link named like 'n2->n1' (from node n2 to node n1; README \"Environment kinds\")",
  },
  start: async (topology, o, spec) => {
    if (!spec.servers) throw new (await import('../errors.ts')).UsageError('--env external needs --endpoints (e.g. --endpoints redis=127.0.0.1:6379)');
    return (await import('./external.ts')).startExternalEnvironment(topology, o, spec.servers, spec.needs ?? []);
  },
};

/** The registry: one line per environment kind. */
export const ENV_KINDS: readonly EnvKindDef[] = [LOCAL, EXTERNAL, DOCKER];

export function envKind(name: string): EnvKindDef | undefined {
  return ENV_KINDS.find((k) => k.name === name);
}

/** `kind` with the capabilities the user's setup may add (the up-front check; the environment confirms them when it starts). */
export function withSetup(kind: EnvKindDef): EnvKindDef {
  const more = kind.setup?.present() ? kind.setup.capabilities.filter((c) => !kind.capabilities.includes(c)) : [];
  return more.length ? { ...kind, capabilities: [...kind.capabilities, ...more] } : kind;
}

/** The capabilities of `needs` that `kind` lacks, each in words. */
export function missingCapabilities(kind: EnvKindDef, needs: readonly Capability[]): string[] {
  return needs.filter((c) => !kind.capabilities.includes(c)).map((c) => `'${c}' (${CAPABILITIES[c]})`);
}

/** Starts the environment `spec` names (the local one when absent). */
export async function startEnv(spec: EnvSpec | undefined, topology: TopologyName, o: TopologyOptions): Promise<Environment> {
  const kind = envKind(spec?.kind ?? 'local');
  if (!kind?.start) throw new (await import('../errors.ts')).UsageError(`unknown environment kind '${spec?.kind}'; use one of: ${ENV_KINDS.map((k) => k.name).join(', ')}`);
  return kind.start(topology, o, spec ?? { kind: 'local' });
}

/** One kind's column of the capability table: 'yes', 'with <setup>' or 'no'. */
export function capabilityCell(kind: EnvKindDef, c: Capability): string {
  if (kind.capabilities.includes(c)) return 'yes';
  return kind.setup?.capabilities.includes(c) ? `with ${kind.setup.label}` : 'no';
}

/** Environment kinds × capabilities, as `lockpick list` prints it (from the registry, so it cannot drift). */
export function capabilityTable(): string[] {
  const caps = Object.keys(CAPABILITIES) as Capability[];
  const rows = [['', ...ENV_KINDS.map((k) => k.name)], ...caps.map((c) => [c, ...ENV_KINDS.map((k) => capabilityCell(k, c))])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => `  ${r.map((x, i) => x.padEnd(widths[i]!)).join('  ')}`.trimEnd());
}
