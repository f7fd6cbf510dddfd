// The protocols the fault proxy frames (src/proxy/points.ts), by the name a TopologyDef's
// `framing` gives. One module each; a new protocol is a module and a line here.
import type { Framing } from './types.ts';
import { resp } from './resp.ts';
import { mysql } from './mysql.ts';
import { postgres } from './postgres.ts';
import { zookeeper } from './zookeeper.ts';
import { http2 } from './http2.ts';
import { memcached } from './memcached.ts';

export type { Framer, Framing } from './types.ts';

export const FRAMINGS: ReadonlyMap<string, Framing> = new Map([
  ['resp', resp], ['mysql', mysql], ['postgres', postgres], ['zookeeper', zookeeper], ['http2', http2], ['memcached', memcached],
]);
