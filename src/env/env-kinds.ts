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
   * Capabilities the user's setup may add, certain only once the environment starts and sees it
   * (external: 'node-link' when TOXIPROXY_URL is set); `hint` says how to get them.
   */
  setup?: { capabilities(): readonly Capability[]; hint: string };
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
  // plus server links the user routes through the Toxiproxy of TOXIPROXY_URL (external.ts).
  capabilities: ['client-process', 'client-link'],
  setup: {
    capabilities: () => (process.env.TOXIPROXY_URL ? ['node-link'] : []),
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
  const more = kind.setup?.capabilities().filter((c) => !kind.capabilities.includes(c)) ?? [];
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
