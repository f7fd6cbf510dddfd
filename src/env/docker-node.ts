// One server as a container. Its network namespace belongs to a small holder
// container (the Kubernetes "pause container" pattern): the holder owns the
// node's address on the private network and its published port, and the
// node→node proxy rules live in that namespace, so they are in place before
// the server starts and survive its kill and restart.
// pause = the cgroup freezer, kill = SIGKILL (or SIGTERM, then SIGKILL after a bound), restart = start the same
// container again (empty: no persistence), clock = the shim's offset file in
// the node's bind-mounted dir.
import type Dockerode from 'dockerode';
import type { NodeRole } from './types.ts';
import { DEFAULT_GRACE_MS, type StopHow } from './capabilities.ts';
import type { ManagedNode } from './environment.ts';
import { writeClockOffset } from './clock.ts';
import { gone, untrack } from './docker-engine.ts';
import { waitReady } from './wait.ts';

/** A 409 (conflict) whose message says the container already is in the wanted state: not an error. */
const already = (msg: RegExp) => (e: unknown): void => {
  if ((e as { statusCode?: number })?.statusCode !== 409 || !msg.test(String((e as Error)?.message))) throw e;
};

export interface DockerNodeParts {
  id: string;
  role: NodeRole;
  /** Where lockpick reaches it: the published port (127.0.0.1 on a local engine). */
  host: string;
  port: number;
  /** Where its peers and Sentinel see it: its address on the private network and its own port. */
  announced: { host: string; port: number };
  server: Dockerode.Container;
  /** The host file the shim in the container reads (undefined: no clock control, e.g. a remote engine). */
  clockFile?: string;
  ready(): Promise<boolean>;
  readyMs: number;
}

export class DockerNode implements ManagedNode {
  readonly logFile = '';
  readonly id: string;
  readonly role: NodeRole;
  readonly host: string;
  readonly port: number;
  readonly announced: { host: string; port: number };
  /** Login a client needs (copied into its endpoints), for servers that have one. */
  credentials?: { user: string; password: string; database?: string };
  private offsetMs = 0;
  /** Start, kill and restart one at a time (two faults on one node may heal at once). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly p: DockerNodeParts) {
    ({ id: this.id, role: this.role, host: this.host, port: this.port, announced: this.announced } = p);
    if (p.clockFile) writeClockOffset(p.clockFile, 0);
  }

  pid(): undefined { return undefined; }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const next = this.queue.then(f, f);
    this.queue = next.catch(() => {});
    return next;
  }

  /** Starts the server container and waits until it serves. */
  start(): Promise<void> {
    return this.serial(() => this.startNow());
  }

  private async startNow(): Promise<void> {
    await this.p.server.start().catch(already(/already started/));
    try {
      await waitReady(`container ${this.id} (${this.host}:${this.port}) serving`, this.p.ready, { timeoutMs: this.p.readyMs });
    } catch (e) {
      throw new Error(`${(e as Error).message}\ncontainer log (last lines):\n${await this.logTail()}`, { cause: e });
    }
  }

  private async logTail(): Promise<string> {
    const b = await this.p.server.logs({ stdout: true, stderr: true, tail: 30 }).catch((e: unknown) => String(e));
    // The engine multiplexes stdout/stderr with 8-byte frame headers: keep the text.
    return String(b).replace(/[\x00-\x08]/g, '');
  }

  // Idempotent like SIGSTOP/SIGCONT on a process: two overlapping pauses of one node are fine.
  async pause(): Promise<void> { await this.p.server.pause().catch(already(/already paused/)); }
  async resume(): Promise<void> { await this.p.server.unpause().catch(already(/is not paused/)); }

  kill(how: StopHow = {}): Promise<{ forced?: boolean } | void> {
    return this.serial<{ forced?: boolean } | void>(() => ((how.signal ?? 'SIGKILL') === 'SIGKILL' ? this.killNow() : this.terminateNow(how.signal!, how.graceMs ?? DEFAULT_GRACE_MS)));
  }

  /** A graceful stop: the signal, unpaused so the server can handle it, then SIGKILL once `graceMs` has passed. */
  private async terminateNow(signal: string, graceMs: number): Promise<{ forced: boolean }> {
    await this.p.server.kill({ signal }).catch((e: unknown) => { if (!gone(e)) throw e; });
    await this.resume().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), graceMs); });
    const forced = (await Promise.race([this.p.server.wait().catch(() => undefined), late])) === 'late';
    clearTimeout(timer);
    if (forced) await this.killNow();
    return { forced };
  }

  private async killNow(): Promise<void> {
    await this.p.server.kill().catch((e: unknown) => { if (!gone(e)) throw e; }); // 409: not running
  }

  restart(o?: { persistence?: 'none' | 'aof-always' }): Promise<void> {
    if (o?.persistence === 'aof-always') return Promise.reject(new Error(`lockpick: node ${this.id}: the docker environment restarts containers empty ('restart-persistence' none only)`));
    return this.serial(async () => {
      await this.killNow();
      await this.p.server.wait().catch(() => undefined);
      await this.startNow();
    });
  }

  async setClockOffsetMs(ms: number): Promise<void> {
    if (!this.p.clockFile) throw new Error(`lockpick: cannot move the clock of node ${this.id}: the clock shim is bind-mounted only on a local Docker engine`);
    writeClockOffset(this.p.clockFile, ms);
    this.offsetMs = ms;
  }

  clockOffsetMs(): number { return this.offsetMs; }

  /** Removes the server container (its holder goes with the environment's network). */
  async stop(): Promise<void> {
    await this.p.server.remove({ force: true, v: true }).catch((e: unknown) => { if (!gone(e)) throw e; });
    untrack('containers', this.p.server.id);
  }
}
