// What the local and external environment kinds can do to their servers, as data: read by the
// environments themselves (environment.ts, external.ts) and by the registry (env-kinds.ts),
// which adds how each starts.
import { ALL_CAPABILITIES } from './capabilities.ts';
import type { EnvKindDef } from './types.ts';

export const LOCAL_INFO: EnvKindDef = {
  name: 'local',
  summary: 'servers from the OS packages on this machine, on 127.0.0.1, started and stopped by lockpick',
  capabilities: ALL_CAPABILITIES,
};

export const EXTERNAL_INFO: EnvKindDef = {
  name: 'external',
  summary: "the user's own servers (--endpoints); lockpick's fault proxy sits between its clients and them",
  // Only what happens on lockpick's side: its clients, and the client links through its proxy;
  // plus server links the user routes through the Toxiproxy of TOXIPROXY_URL (external.ts).
  // and ending its own clients' sessions (a login may end sessions of its own user).
  capabilities: ['client-process', 'client-link', 'session-end'],
  setup: {
    capabilities: ['node-link'],
    present: () => Boolean(process.env.TOXIPROXY_URL),
    label: 'TOXIPROXY_URL',
    hint: "'node-link' on --env external: set TOXIPROXY_URL to your Toxiproxy, with a proxy per server link named like 'n2->n1' (from node n2 to node n1; README \"Environment kinds\")",
  },
};
