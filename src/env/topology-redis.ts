// `redis`: N independent masters (Redlock's setting), plus an optional
// fault-free resource node that clients reach directly, not through the proxy.
import type { TopologyOptions } from './types.ts';
import type { LocalEnvironment } from './environment.ts';
import { createRedisNode, redisContainerCmd, redisPing, REDIS_CONTAINER_PORT } from './redis.ts';
import { freePort } from './ports.ts';
import { settleAll } from './settle.ts';
import { onlyOptions, type TopologyDef } from './topology.ts';
import { UsageError } from '../errors.ts';
import { REDIS_IMAGE } from './docker-image.ts';

/** Redis's words for the checker: an unlock that does not check the owner is a DEL of whatever is there. */
export const REDIS_WORDS = {
  staleUnlock: (victim: number) => `the unlock deleted the key, which by then was process ${victim}'s lock`,
  lateUnlock: 'its key had expired, so it cannot have deleted its own lock; an unlock that does not compare the value first deletes whichever client\'s key is there',
};

export async function startRedisTopology(env: LocalEnvironment, o: TopologyOptions): Promise<void> {
  const persistence = o.persistence ?? 'none';
  const ids = Array.from({ length: o.masters ?? 1 }, (_, i) => `n${i + 1}`);
  if (o.resource) ids.push('resource');
  await settleAll(
    ids.map(async (id) => {
      const role = id === 'resource' ? 'resource' : 'redis';
      return createRedisNode({ id, role, port: await freePort(), root: env.root, persistence });
    }),
    (node) => env.nodes.push(node),
  );
}

export const redisTopology: TopologyDef = {
  name: 'redis',
  summary: '1 to 7 independent Redis masters (--masters; Redlock uses 5)',
  backend: 'redis',
  packages: ['redis-server'],
  framing: 'resp',
  words: REDIS_WORDS,
  roles: { data: ['redis'] },
  endpointRoles: [{ role: 'redis' }],
  leased: true,
  expiryClock: 'wall',
  restartForgets: 'without-persistence',
  leader: { none: 'independent masters: none is elected' },
  sessionEndsWithConnection: false,
  asyncFailover: false,
  nativeClient: false,
  // Redis expires a key to the millisecond asked (PX) and never answers with one past it (lazy expiry on access).
  timescales: { none: 'no lease floor and no expiry lag to size by' },
  images: { redis: REDIS_IMAGE },
  options: ['masters', 'persistence'],
  validate(o) {
    onlyOptions('redis', o, ['masters', 'persistence']);
    if (o.masters !== undefined && (!Number.isInteger(o.masters) || o.masters < 1 || o.masters > 7)) {
      throw new UsageError(`masters must be an integer from 1 to 7, got ${o.masters}`);
    }
  },
  start: startRedisTopology,
  docker: async (kit, o) => {
    const ids = Array.from({ length: o.masters ?? 1 }, (_, i) => `n${i + 1}`);
    await kit.place(ids.map((id) => ({ id, port: REDIS_CONTAINER_PORT })));
    await Promise.all(ids.map((id) => kit.start({ id, role: 'redis', image: 'redis', cmd: redisContainerCmd(), ready: (h, p) => redisPing(p, h) })));
  },
  external: (o) => [{ role: 'redis', as: 'redis', prefix: 'n', min: o.masters ?? 1, max: o.masters ?? 1 }],
};
