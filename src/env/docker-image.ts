// The default server image, built locally from this machine's own redis-server
// and the shared libraries it links (ldd): no registry is needed. A Dockerfile
// FROM scratch goes to the engine's build API, so DOCKER_HOST works too.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ContainerRuntimeClient } from 'testcontainers';
import { requireBinary } from './binaries.ts';

export const DEFAULT_REDIS_IMAGE = 'lockpick-redis:local';

/** The files a dynamically linked binary needs: itself and what ldd lists (absolute paths). */
function linkedFiles(bin: string): string[] {
  const out = execFileSync('ldd', [bin], { encoding: 'utf8' });
  const libs = [...out.matchAll(/(\/\S+) \(0x/g)].map((m) => m[1]!);
  return [bin, ...libs];
}

async function imageExists(client: ContainerRuntimeClient, name: string): Promise<boolean> {
  const { ImageName } = await import('testcontainers');
  return client.image.exists(ImageName.fromString(name));
}

/** Builds `lockpick-redis:local` from the host's redis-server unless the engine has it already. */
export async function ensureDefaultRedisImage(client: ContainerRuntimeClient, log: (m: string) => void): Promise<void> {
  if (await imageExists(client, DEFAULT_REDIS_IMAGE)) return;
  const bin = requireBinary('redis-server');
  const ctx = mkdtempSync(path.join(os.tmpdir(), 'lockpick-image-'));
  try {
    for (const f of linkedFiles(bin)) {
      // The redis-server name matters: Redis picks its mode (server, check-rdb) from argv[0].
      const to = path.join(ctx, 'rootfs', f === bin ? '/usr/bin/redis-server' : f);
      mkdirSync(path.dirname(to), { recursive: true });
      copyFileSync(f, to); // follows symlinks: the real file under the linked name
    }
    mkdirSync(path.join(ctx, 'rootfs', 'data'), { recursive: true });
    mkdirSync(path.join(ctx, 'rootfs', 'tmp'), { recursive: true });
    writeFileSync(path.join(ctx, 'Dockerfile'), 'FROM scratch\nCOPY rootfs/ /\nENV PATH=/usr/bin:/bin\nWORKDIR /data\nCMD ["redis-server"]\n');
    log(`lockpick: building the image ${DEFAULT_REDIS_IMAGE} from ${bin} (once per Docker engine)`);
    await client.image.build(ctx, { t: DEFAULT_REDIS_IMAGE, dockerfile: 'Dockerfile' } as Parameters<typeof client.image.build>[1]);
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
  // The build API reports failures only in its output stream: check the result.
  if (!(await imageExists(client, DEFAULT_REDIS_IMAGE))) throw new Error(`building ${DEFAULT_REDIS_IMAGE} from ${bin} failed (DEBUG=testcontainers:build shows the engine's output)`);
}
