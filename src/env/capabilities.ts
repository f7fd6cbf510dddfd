// What an environment kind can do to its servers (after Jepsen's DB protocol
// with its optional Kill/Pause protocols). Each fault kind declares the
// capabilities it needs (KindDef.needs); `lockpick run` refuses a fault whose
// capability the chosen environment kind lacks, up front, rather than
// skipping it silently.

/** Every capability, with the words `lockpick list` and the refusals use. */
export const CAPABILITIES = {
  'client-process': "pause, kill and skew the clocks of lockpick's own client processes",
  'client-link': "cut and slow client→server links through lockpick's fault proxy",
  'node-link': 'cut and slow server→server links (replication, quorum, Sentinel) through the fault proxy',
  pause: 'pause and resume server processes',
  kill: 'kill server processes and restart them as they were started',
  term: 'stop server processes gracefully (SIGTERM, SIGKILL after a bound) and restart them as they were started',
  'restart-persistence': 'restart a killed server with or without persistence (Redis: forget every key)',
  clock: "move servers' wall clocks",
  failover: 'drive a Sentinel failover (take the primary away, wait for a promotion)',
  'session-end': "end a client's server session as the server's administrator (pg_terminate_backend, KILL CONNECTION)",
} as const;

export type Capability = keyof typeof CAPABILITIES;

/**
 * The signals a node can be stopped with (NodeHandle.kill), each with the capability it needs:
 * a new way to stop a server is a line here and a capability above, not a new node operation.
 */
export const STOP_SIGNALS = { SIGKILL: 'kill', SIGTERM: 'term' } as const satisfies Record<string, Capability>;

export type StopSignal = keyof typeof STOP_SIGNALS;

/** How a node is stopped: a signal (default SIGKILL) and, for one a server may handle, how long to wait before SIGKILL. */
export interface StopHow { signal?: StopSignal; graceMs?: number }

/** The bound when the caller names none (systemd's is 90 s; the servers here stop in well under a second). */
export const DEFAULT_GRACE_MS = 10_000;

export const ALL_CAPABILITIES = Object.keys(CAPABILITIES) as Capability[];

export function isCapability(c: string): c is Capability {
  return Object.hasOwn(CAPABILITIES, c);
}

/** The capabilities of `needs` that an environment kind lacks, each in words. */
export function missingCapabilities(kind: { readonly capabilities: readonly Capability[] }, needs: readonly Capability[]): string[] {
  return needs.filter((c) => !kind.capabilities.includes(c)).map((c) => `'${c}' (${CAPABILITIES[c]})`);
}
