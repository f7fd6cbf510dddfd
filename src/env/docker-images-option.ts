// `--image ROLE=IMAGE` and test.json's env.images checked against the image kinds the registered
// topologies declare: above the topology registry, so the docker kit below it imports no topology.
import { imageKinds } from './topologies.ts';

/** An image reference as docker takes it (name, tag, registry, digest). */
const IMAGE_REF = /^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/;

/** Why ROLE=IMAGE cannot be used, or undefined (shared by --image and test.json's env.images). */
export function imageProblem(role: string, image: string): string | undefined {
  const kinds = imageKinds();
  if (!kinds.includes(role)) return `--env docker takes images for ${kinds.join(', ')}, not '${role}'`;
  return IMAGE_REF.test(image) ? undefined : `'${image}' is not an image reference (e.g. redis:7.2)`;
}

/** `--image redis=redis:7.2,...` → { redis: 'redis:7.2' }; UsageError naming the bad part. */
export async function parseImages(list: string): Promise<Record<string, string>> {
  const { UsageError } = await import('../errors.ts');
  const out: Record<string, string> = {};
  for (const part of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z-]+)=(.+)$/.exec(part);
    if (!m || !IMAGE_REF.test(m[2]!)) throw new UsageError(`--image '${part}': use ROLE=IMAGE, e.g. --image redis=redis:7.2`);
    const problem = imageProblem(m[1]!, m[2]!);
    if (problem) throw new UsageError(`--image '${part}': ${problem}`);
    out[m[1]!] = m[2]!;
  }
  return out;
}
