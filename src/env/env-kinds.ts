// Environment kinds: where the servers come from, and what lockpick can do to
// them. One entry per kind; `lockpick run --env NAME` picks one.
import { ALL_CAPABILITIES, CAPABILITIES, type Capability } from './capabilities.ts';
import type { Environment, TopologyName, TopologyOptions } from './types.ts';
import type { ExternalServers } from './endpoints.ts';
import { DOCKER } from './docker-kind.ts';

/** Which environment a run uses (stored in test.json, so a replay rebuilds it). */
export interface EnvSpec { kind: string; servers?: ExternalServers }

export interface EnvKindDef {
  name: string;
  summary: string;
  capabilities: readonly Capability[];
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
  // Only what happens on lockpick's side: its clients, and the client links through its proxy.
  capabilities: ['client-process', 'client-link'],
  start: async (topology, o, spec) => {
    if (!spec.servers) throw new (await import('../errors.ts')).UsageError('--env external needs --endpoints (e.g. --endpoints redis=127.0.0.1:6379)');
    return (await import('./external.ts')).startExternalEnvironment(topology, o, spec.servers);
  },
};

/** The registry: one line per environment kind. */
export const ENV_KINDS: readonly EnvKindDef[] = [LOCAL, EXTERNAL, DOCKER];

export function envKind(name: string): EnvKindDef | undefined {
  return ENV_KINDS.find((k) => k.name === name);
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
