// `sent_ms` for a client whose requests leave another process (a process client, a program it
// runs): their bytes reach the fault proxy on the client's links, which keeps when they last did
// (src/proxy/api.ts `last_send_ms`, CLOCK_MONOTONIC). That moment is no earlier than the client's
// own write (the proxy reads it after), and the last bytes before the ok are no earlier than the
// granting request's: so `at − last` is no more than the time the lock had to count, the lower
// bound checkers/validity.ts needs (a keep-alive or any later byte only makes it smaller). Bytes
// that went to the servers around the proxy would escape it; the proxy is the only address a
// client is given.

/** Where a proxied client's last send is read: the proxy's API and the client's id there. */
export interface ProxySends { url: string; client: string }

/**
 * ms from the client's last send to `atMs` (both CLOCK_MONOTONIC), floored, or undefined: none
 * since `sinceMs` (the operation's start: nothing of this operation to count from), or the proxy
 * did not answer within a second (nothing is checked then).
 */
export async function proxySentMs(p: ProxySends, sinceMs: number, atMs: number): Promise<number | undefined> {
  let last: unknown;
  try {
    const r = await fetch(`${p.url}/points/${encodeURIComponent(p.client)}`, { signal: AbortSignal.timeout(1000) });
    if (!r.ok) return undefined;
    last = ((await r.json()) as { last_send_ms?: unknown }).last_send_ms;
  } catch {
    return undefined;
  }
  if (typeof last !== 'number' || !Number.isFinite(last) || last < sinceMs) return undefined;
  return Math.max(0, Math.floor(atMs - last));
}
