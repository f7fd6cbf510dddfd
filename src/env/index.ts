// The environment package's face: what the rest of lockpick and the tests take from src/env/.
// Each environment kind is a file of its own (local.ts, external.ts, docker-start.ts with
// docker-kind.ts), registered in env-kinds.ts.
export type { Environment, NodeHandle, Link, Endpoint, TopologyName, TopologyOptions } from './types.ts';
export { startEnvironment, portTaken } from './local.ts';
export { TOPOLOGIES, validateTopology } from './topologies.ts';
export { cleanupLeftovers, stopEnvUps } from './lifecycle.ts';
export { MissingBinaryError } from './binaries.ts';
export { zookeeperMode, fourLetterWord } from './zookeeper.ts';
export { MARIADB_DATABASE } from './mariadb.ts';
export { SENTINEL_NAME } from './topology-sentinel.ts';
