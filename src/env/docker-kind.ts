// The `docker` environment kind: the servers as containers (testcontainers),
// every link through lockpick's fault proxy. Kept apart from docker.ts so
// the kind registry does not load testcontainers unless the kind is used;
// docker-start.ts starts it.
import type { EnvKindDef, EnvSpec } from './types.ts';
import { isLocalEngine } from './docker-engine.ts';

export { isLocalEngine };
import type { Capability } from './capabilities.ts';

/** A server image --env docker runs: a key of some topology's `images` (built locally by docker-image.ts unless --image names one). */
export type ImageKind = string;

/** --env docker: `images` from --image (role=IMAGE), e.g. { redis: 'redis:7.2' }. */
export interface DockerEnvSpec extends EnvSpec { images?: Partial<Record<ImageKind, string>> }

// Container pause (cgroup freezer), kill + start (restarts are empty: 'restart-persistence'
// is 'none' only, 'aof-always' is refused by the node), node links through the proxy
// (a nat rule in each container's namespace), Sentinel failover, and everything on
// lockpick's side. The clock shim and the node-link rules need the engine on this machine.
const ALWAYS: Capability[] = ['client-process', 'client-link', 'pause', 'kill', 'term', 'restart-persistence', 'failover', 'session-end'];

/** What the docker kind can do (the registry, env-kinds.ts, adds how it starts). */
export const DOCKER_INFO: EnvKindDef = {
  name: 'docker',
  summary: 'servers in containers on a Docker engine (testcontainers; DOCKER_HOST honoured), ports on 127.0.0.1',
  capabilities: isLocalEngine() ? [...ALWAYS, 'node-link', 'clock'] : ALWAYS,
};

