// What the etcd recipes' LockRecipes say alike (etcd-mutex, etcd-lease-lock): three members,
// and a lease the client keeps alive while it holds, over a connection of its own.
import { ETCD_CHANNELS, ETCD_OPTIONS_HELP } from './etcd-client.ts';

export const ETCD_RECIPE = {
  topology: { kind: 'etcd', members: 3 },
  keepsAlive: true,   // the client keeps the lease alive while it holds
  channels: ETCD_CHANNELS,   // the Lease service on a connection of its own: keepalive-cut can cut it alone
  optionsHelp: ETCD_OPTIONS_HELP,
  optionValues: { retryMs: 'number' },
} as const;
