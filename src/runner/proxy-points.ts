// The runner's side of the fault proxy's I/O points (src/proxy/points.ts): for a client whose I/O
// no hook in its worker sees (a native client library, a client in another language), the proxy
// frames the requests on the client's links and holds the k-th of an operation; the client pool
// (clients.ts) tells it the operation at each invoke, hears of a held request by a long poll,
// pauses the client as at any point and lets the request go on.
import type { LockRecipe } from '../locks/lock.ts';
import { topologyDef } from '../env/topologies.ts';
import { declared } from '../env/topology.ts';
import { IO_POINT_OPS, type IoPointOp } from '../workload/plan.ts';
import type { IoCounts, ReachedPoints } from '../workload/points.ts';

/**
 * The protocol the proxy frames for this lock's clients when their I/O points are the proxy's
 * (the recipe says so, or its topology's client is native), and the topology declares one;
 * undefined: the worker's hooks make them (or none can be made).
 */
export function proxyFraming(recipe: LockRecipe, topology: string): string | undefined {
  const def = topologyDef(topology);
  const wants = recipe.ioPoints === 'proxy' || (recipe.ioPoints !== 'hooks' && def?.nativeClient === true);
  return wants ? declared(def?.framing) : undefined;
}

/**
 * Whether the lock's requests leave through this worker's sockets, where the send clock
 * (./send-clock.ts) sees them: not for a client in another process (a process client, a CLI it
 * runs: ioPoints 'proxy') nor a native client library. There the worker's last write is the
 * request it handed the child, which puts every retry and wait of the lock inside `sent_ms`: an
 * upper bound where the validity check needs a lower one (it would call a correct lock's
 * validity overstated). Such a lock's `sent_ms` comes from the fault proxy, where its bytes arrive
 * (proxy-send-clock.ts), when the proxy frames its links; else its acquires carry none.
 */
export function sendsSeenInProcess(recipe: LockRecipe, topology: string): boolean {
  return recipe.ioPoints !== 'proxy' && (recipe.ioPoints === 'hooks' || topologyDef(topology)?.nativeClient !== true);
}

/** A request the proxy holds for the runner. */
export interface HeldRequest { id: number; point: string; command?: string }

/** The proxy's /points API, for the pool. Every call has a deadline: a proxy that does not answer never hangs a run. */
export class ProxyPointsControl {
  constructor(readonly url: string, readonly framing: string) {}

  private async call(method: string, path: string, body?: unknown, ms = 5000, signal?: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(ms);
    const r = await fetch(`${this.url}/points/${path}`, {
      method, signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } } : {}),
    });
    if (r.status >= 400) throw new Error(`fault proxy: ${method} /points/${path}: ${r.status} ${await r.text()}`);
    return r;
  }

  /** The client's links are framed from their next connection; `hold`: the send points to hold. */
  async bind(client: string, proxies: string[], hold: string[]): Promise<void> {
    await this.call('PUT', encodeURIComponent(client), { proxies, framing: this.framing, hold });
  }

  async operation(client: string, op: IoPointOp | undefined, granted = false): Promise<void> {
    await this.call('POST', `${encodeURIComponent(client)}/operation`, { op: op ?? null, ...(granted ? { granted } : {}) });
  }

  /** The next held request, waiting up to waitMs; undefined when none came. */
  async next(client: string, waitMs: number, signal: AbortSignal): Promise<HeldRequest | undefined> {
    const r = await this.call('GET', `${encodeURIComponent(client)}/held?wait_ms=${waitMs}`, undefined, waitMs + 5000, signal);
    return r.status === 200 ? await r.json() as HeldRequest : undefined;
  }

  async go(client: string, id: number): Promise<void> {
    await this.call('POST', `${encodeURIComponent(client)}/go`, { id });
  }

  /** What the client's operations reached (sends; no reply points come from the proxy). */
  async reached(client: string): Promise<ReachedPoints['io']> {
    const j = await (await this.call('GET', encodeURIComponent(client))).json() as { reached?: Record<string, { sends?: number; grantedSends?: number }> };
    const io: ReachedPoints['io'] = {};
    for (const op of IO_POINT_OPS) {
      const c = j.reached?.[op];
      if (!c || typeof c.sends !== 'number') continue;
      const counts: IoCounts = { sends: c.sends, replies: 0 };
      if (typeof c.grantedSends === 'number') { counts.grantedSends = c.grantedSends; counts.grantedReplies = 0; }
      io[op] = counts;
    }
    return io;
  }

  /** Unbinds the client: whatever it still holds goes on. */
  async unbind(client: string): Promise<void> {
    await this.call('DELETE', encodeURIComponent(client));
  }
}
