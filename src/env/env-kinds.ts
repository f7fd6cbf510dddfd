// Environment kinds: where the servers come from, and what lockpick can do to
// them. One entry per kind; `lockpick run --env NAME` picks one.
import { ALL_CAPABILITIES, CAPABILITIES, type Capability } from './capabilities.ts';

export interface EnvKindDef {
  name: string;
  summary: string;
  capabilities: readonly Capability[];
}

export const LOCAL: EnvKindDef = {
  name: 'local',
  summary: 'servers from the OS packages on this machine, on 127.0.0.1, started and stopped by lockpick',
  capabilities: ALL_CAPABILITIES,
};

/** The registry: one line per environment kind. */
export const ENV_KINDS: readonly EnvKindDef[] = [LOCAL];

export function envKind(name: string): EnvKindDef | undefined {
  return ENV_KINDS.find((k) => k.name === name);
}

/** The capabilities of `needs` that `kind` lacks, each in words. */
export function missingCapabilities(kind: EnvKindDef, needs: readonly Capability[]): string[] {
  return needs.filter((c) => !kind.capabilities.includes(c)).map((c) => `'${c}' (${CAPABILITIES[c]})`);
}
