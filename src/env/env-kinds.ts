// Environment kinds: where the servers come from, and what lockpick can do to
// them. One entry per kind; `lockpick run --env NAME` picks one.
// What each kind can do is data (env-kind-info.ts, docker-kind.ts), read by the
// environments themselves; how each starts is here, loaded only when it is used.
import { CAPABILITIES, type Capability } from './capabilities.ts';
import type { EnvKindDef, EnvSpec, Environment, TopologyName, TopologyOptions } from './types.ts';
import { EXTERNAL_INFO, LOCAL_INFO } from './env-kind-info.ts';
import { DOCKER_INFO, type DockerEnvSpec } from './docker-kind.ts';

export type { EnvKindDef, EnvSpec };
export { missingCapabilities } from './capabilities.ts';

export const LOCAL: EnvKindDef = {
  ...LOCAL_INFO,
  start: async (topology, o) => (await import('./local.ts')).startEnvironment(topology, o),
};

export const EXTERNAL: EnvKindDef = {
  ...EXTERNAL_INFO,
  start: async (topology, o, spec) => {
    if (!spec.servers) throw new (await import('../errors.ts')).UsageError('--env external needs --endpoints (e.g. --endpoints redis=127.0.0.1:6379)');
    return (await import('./external.ts')).startExternalEnvironment(topology, o, spec.servers, spec.needs ?? []);
  },
};

export const DOCKER: EnvKindDef = {
  ...DOCKER_INFO,
  start: async (topology, o, spec) => (await import('./docker-start.ts')).startDockerEnvironment(topology, o, spec as DockerEnvSpec),
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
