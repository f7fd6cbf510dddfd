// One server node: a NodeHandle over a restartable process with a clock file.
import type { NodeHandle, NodeRole } from './types.ts';
import type { ServerProcess } from './spawn.ts';
import { writeClockOffset } from './clock.ts';

export type Persistence = 'none' | 'aof-always';

/** Starts the node's process (config written, readiness checked) on its fixed port and dir. */
export type Launcher = (o: { persistence?: Persistence }) => Promise<ServerProcess>;

export class ServerNode implements NodeHandle {
  private proc: ServerProcess | undefined;
  private offsetMs = 0;
  /** Starts, kills and restarts one at a time: two faults on one node (a timed one and one anchored to a client's event) may heal at once. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Login a client needs (copied into its endpoints), for servers that have one. */
  credentials?: { user: string; password: string; database?: string };

  constructor(
    readonly id: string,
    readonly role: NodeRole,
    readonly port: number,
    readonly dir: string,
    readonly logFile: string,
    readonly clockFile: string,
    private readonly launch: Launcher,
  ) {
    writeClockOffset(clockFile, 0);
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const next = this.queue.then(f, f);
    this.queue = next.catch(() => {});
    return next;
  }

  start(o: { persistence?: Persistence } = {}): Promise<void> {
    return this.serial(async () => { this.proc = await this.launch(o); });
  }

  pid(): number | undefined {
    return this.proc && !this.proc.hasExited ? this.proc.pid : undefined;
  }

  private running(what: string): ServerProcess {
    if (!this.proc || this.proc.hasExited) throw new Error(`lockpick: cannot ${what} node ${this.id}: it is not running (restart it first)`);
    return this.proc;
  }

  async pause(): Promise<void> {
    this.running('pause').signal('SIGSTOP');
  }

  async resume(): Promise<void> {
    this.running('resume').signal('SIGCONT');
  }

  kill(): Promise<void> {
    return this.serial(async () => { await this.proc?.kill(); });
  }

  restart(o: { persistence?: Persistence } = {}): Promise<void> {
    return this.serial(async () => {
      await this.proc?.kill();
      this.proc = await this.launch(o);
    });
  }

  async setClockOffsetMs(ms: number): Promise<void> {
    writeClockOffset(this.clockFile, ms);
    this.offsetMs = ms;
  }

  clockOffsetMs(): number {
    return this.offsetMs;
  }

  /** Teardown: SIGKILL, no waiting for a graceful shutdown (the dir is removed after). */
  async stop(): Promise<void> {
    await this.proc?.kill();
  }
}
