// The environment of a run in test.json ("env", "key_prefix"), so --replay
// rebuilds the same one; and the key namespace a run writes under.
import { envKind, ENV_KINDS, type EnvSpec } from '../env/env-kinds.ts';
import { redactEndpoints, storedEndpoints } from '../env/endpoints.ts';
import { UsageError } from '../errors.ts';
import { capabilityProblem } from '../../nemesis/kinds.ts';
import type { RunPlan } from '../workload/plan.ts';

/** The default prefix on servers lockpick does not own. */
export const EXTERNAL_KEY_PREFIX = 'lockpick:';

/** What test.json records (never a password). */
export function envJson(env: EnvSpec | undefined, keyPrefix: string | undefined): { env: Record<string, unknown>; key_prefix: string | null } {
  const kind = env?.kind ?? 'local';
  return { env: { kind, ...(env?.servers ? redactEndpoints(env.servers) : {}) }, key_prefix: keyPrefix ?? null };
}

/**
 * Keys of a session: `<prefix><run id>:r<n>-<key>`, so two runs against one external server
 * never meet each other's leftovers. No prefix (the local default): `r<n>-<key>` as ever.
 */
export function keyNamespace(env: EnvSpec | undefined, keyPrefix: string | undefined, runId: string): string {
  const p = keyPrefix ?? (env?.kind === 'external' ? EXTERNAL_KEY_PREFIX : undefined);
  return p === undefined ? '' : `${p}${runId}:`;
}

/** The environment a stored test ran on (`override` from --endpoints wins); its plan's faults must fit it. */
export function envFromTest(test: Record<string, unknown>, where: string, plan: RunPlan, override?: EnvSpec): { env: EnvSpec; keyPrefix?: string } {
  const stored = (test.env ?? { kind: 'local' }) as Record<string, unknown>;
  const name = override?.kind ?? String(stored.kind);
  const kind = envKind(name);
  if (!kind) throw new UsageError(`${where}: "env.kind" '${name}' is not an environment kind (${ENV_KINDS.map((k) => k.name).join(', ')})`);
  const env: EnvSpec = override ?? { kind: name, ...(name === 'external' ? { servers: storedEndpoints(stored, where) } : {}) };
  for (const f of plan.faults) {
    const p = capabilityProblem(f, kind);
    if (p) throw new UsageError(`${where}: the plan's ${p}; replay it on an environment that has it (--env local)`);
  }
  return { env, keyPrefix: typeof test.key_prefix === 'string' ? test.key_prefix : undefined };
}
