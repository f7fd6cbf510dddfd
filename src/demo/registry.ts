// The `lockpick demo` catalogue, in the order the index lists it. An entry is
// added by writing it in one of the entries-*.ts files and its plan in
// scenarios/<name>/test.json (test/unit/demo-catalogue.test.ts checks both).
import type { DemoEntry } from './entry.ts';
import { REDIS_ENTRIES } from './entries-redis.ts';
import { MULTI_ENTRIES } from './entries-multi.ts';
import { SESSION_ENTRIES } from './entries-sessions.ts';
import { POSTGRES_ENTRIES } from './entries-postgres.ts';
import { ETCD_ENTRIES } from './entries-etcd.ts';
import { NATS_ENTRIES } from './entries-nats.ts';
import { SHARED_ENTRIES } from './entries-shared.ts';

export type { DemoEntry } from './entry.ts';

export const DEMOS: readonly DemoEntry[] = [...REDIS_ENTRIES, ...MULTI_ENTRIES, ...SESSION_ENTRIES, ...POSTGRES_ENTRIES, ...ETCD_ENTRIES, ...NATS_ENTRIES, ...SHARED_ENTRIES];

export function findDemo(name: string): DemoEntry | undefined {
  return DEMOS.find((d) => d.name === name);
}
