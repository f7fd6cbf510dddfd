// One server node: a NodeHandle over a restartable process with a clock file.
import type { NodeHandle, NodeRole } from './types.ts';
import { DEFAULT_GRACE_MS, type StopHow } from './capabilities.ts';
import type { ServerProcess } from './spawn.ts';
import { writeClockOffset } from './clock.ts';
import { createServer } from 'node:net';
import { InconclusiveError } from '../errors.ts';

/**
 * A node's port was taken by another process while the node was down: it cannot come back
 * where its clients and proxy expect it, so no further run on this environment is a test
 * (Session.runOnce ends the search inconclusive at once, exit 3).
 */
export class PortTaken extends InconclusiveError {
  constructor(readonly node: string, readonly port: number) {
    super(`node ${node} cannot restart: its port ${port} was taken by another process while the node was down, so the environment cannot go on and the search stops here (no verdict)\n  fix: keep other programs off the ports lockpick picks (they are chosen afresh on each start) and run again`);
    this.name = 'PortTaken';
  }
}

/** Resolves when 127.0.0.1:port can be bound (then frees it), throws PortTaken when another process holds it. */
async function portFree(node: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const s = createServer();
    s.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new PortTaken(node, port) : e));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve()));
  });
}

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
    return this.serial(async () => {
      // A second launch would orphan the first server (and its port): say so instead.
      if (this.proc && !this.proc.hasExited) throw new Error(`lockpick: node ${this.id} is already running (pid ${this.proc.pid}); restart() it instead`);
      this.proc = await this.launch(o);
    });
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

  kill(how: StopHow = {}): Promise<{ forced?: boolean } | void> {
    return this.serial(async () => {
      if ((how.signal ?? 'SIGKILL') === 'SIGKILL') return void await this.proc?.kill();
      return this.proc?.terminate(how.signal!, how.graceMs ?? DEFAULT_GRACE_MS);
    });
  }

  restart(o: { persistence?: Persistence } = {}): Promise<void> {
    return this.serial(async () => {
      await this.proc?.kill();
      await portFree(this.id, this.port);   // else the launch fails late, or a stranger answers its probe
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
