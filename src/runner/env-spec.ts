// The environment of a run in test.json ("env", "key_prefix"), so --replay
// rebuilds the same one; and the key namespace a run writes under.
import { envKind, ENV_KINDS, withSetup, type EnvSpec } from '../env/env-kinds.ts';
import type { Capability } from '../env/capabilities.ts';
import { redactEndpoints, storedEndpoints } from '../env/endpoints.ts';
import type { DockerEnvSpec } from '../env/docker-kind.ts';
import { imageProblem } from '../env/docker-images-option.ts';
import { UsageError } from '../errors.ts';
import { capabilityProblem, specNeeds } from '../../nemesis/kinds.ts';
import type { RunPlan } from '../workload/plan.ts';

/** The default prefix on servers lockpick does not own. */
export const EXTERNAL_KEY_PREFIX = 'lockpick:';

/** What test.json records (never a password). */
export function envJson(env: EnvSpec | undefined, keyPrefix: string | undefined): { env: Record<string, unknown>; key_prefix: string | null } {
  const kind = env?.kind ?? 'local';
  const images = (env as DockerEnvSpec | undefined)?.images;
  return {
    env: { kind, ...(env?.servers ? redactEndpoints(env.servers) : {}), ...(images && Object.keys(images).length ? { images } : {}) },
    key_prefix: keyPrefix ?? null,
  };
}

/** test.json's env.images (--env docker), checked as --image is; absent: the default images. */
function storedImages(raw: unknown, where: string): Record<string, string> | undefined {
  if (raw === undefined) return undefined;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError(`${where}: "env.images" must be an object such as {"redis": "redis:7.2"}; fix it or give --image with --replay`);
  const out: [string, string][] = []; // roles are the file's: fromEntries keeps `__proto__` a key like any other
  for (const [role, image] of Object.entries(raw)) {
    const problem = typeof image === 'string' ? imageProblem(role, image) : `${JSON.stringify(image)} is not a string`;
    if (problem) throw new UsageError(`${where}: "env.images.${role}": ${problem}; fix it or give --image with --replay`);
    out.push([role, image as string]);
  }
  return Object.fromEntries(out);
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
  let env: EnvSpec = override ?? { kind: name, ...(name === 'external' ? { servers: storedEndpoints(stored, where) } : {}) };
  // The stored images unless --image gives others (--env docker alone keeps them).
  const images = stored.kind === 'docker' && name === 'docker' ? storedImages(stored.images, where) : undefined;
  if (images && !(env as DockerEnvSpec).images) env = { ...env, images } as DockerEnvSpec;
  // What the user's setup may add (external + TOXIPROXY_URL: node links) passes here and is
  // handed to the environment, which refuses to start without it (exit 2 as well).
  const needs = new Set<Capability>();
  for (const f of plan.faults) {
    const p = capabilityProblem(f, withSetup(kind));
    if (p) throw new UsageError(`${where}: the plan's ${p}; replay it on an environment that has it (--env local)${kind.setup ? `; for ${kind.setup.hint}` : ''}`);
    for (const c of specNeeds(f)) if (!kind.capabilities.includes(c)) needs.add(c);
  }
  if (needs.size) env = { ...env, needs: [...needs] };
  return { env, keyPrefix: typeof test.key_prefix === 'string' ? test.key_prefix : undefined };
}
