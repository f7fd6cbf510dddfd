// Spawning one server process: output to its log file, recorded in a pid file,
// forgotten when it exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { forgetProcess, recordProcess } from './lifecycle.ts';

export interface ServerSpec {
  name: string;             // for messages and the pid file, e.g. 'redis-server n1'
  command: string;          // absolute path (see requireBinary)
  args: string[];
  cwd: string;              // the node's private dir: also how leftovers are recognised
  env?: Record<string, string>;
  logFile: string;
  uid?: number;             // run as this uid/gid (peer routing tells nodes apart by uid)
  /** Log lines the readiness probe itself causes: left out of an error's log tail so the cause shows. */
  probeNoise?: RegExp;
}

export interface Exit { code: number | null; signal: NodeJS.Signals | null }

export class ServerProcess {
  readonly pid: number;
  readonly exited: Promise<Exit>;
  private done: Exit | undefined;

  constructor(private readonly child: ChildProcess, readonly spec: ServerSpec) {
    if (child.pid === undefined) throw new Error(`lockpick: could not start ${spec.name} (${spec.command})`);
    this.pid = child.pid;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.done = { code, signal };
        forgetProcess(this.pid);
        resolve(this.done);
      });
    });
  }

  get hasExited(): boolean {
    return this.done !== undefined;
  }

  signal(sig: NodeJS.Signals): void {
    if (this.done) return;
    try {
      this.child.kill(sig);
    } catch {
      /* exited meanwhile */
    }
  }

  /** SIGKILL (which also ends a SIGSTOPped process) and wait for the exit. */
  async kill(): Promise<void> {
    this.signal('SIGKILL');
    await this.exited;
  }

  /**
   * A graceful stop: `sig`, then SIGCONT (as systemd does: a paused server must run to handle
   * it), and SIGKILL if it has not exited within `graceMs`. `forced`: SIGKILL ended it.
   */
  async terminate(sig: NodeJS.Signals, graceMs: number): Promise<{ forced: boolean }> {
    if (this.done) return { forced: false };
    this.signal(sig);
    this.signal('SIGCONT');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), graceMs); });
    const forced = (await Promise.race([this.exited, late])) === 'late';
    clearTimeout(timer);
    if (forced) await this.kill();
    return { forced };
  }

  logTail(lines = 15): string {
    try {
      const noise = this.spec.probeNoise;
      const all = readFileSync(this.spec.logFile, 'utf8').trimEnd().split('\n');
      return (noise ? all.filter((l) => !noise.test(l)) : all).slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }
}

export async function spawnServer(spec: ServerSpec, owned: { dir?: string } = {}): Promise<ServerProcess> {
  const fd = openSync(spec.logFile, 'a', 0o600);
  let child: ChildProcess;
  try {
    child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', fd, fd],
      // Its own process group: a Ctrl-C in the terminal reaches lockpick alone, which
      // stores what it found and then stops the servers itself (never half-way).
      detached: true,
      ...(spec.uid !== undefined ? { uid: spec.uid, gid: spec.uid } : {}),
    });
  } finally {
    closeSync(fd);
  }
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const proc = child.pid === undefined ? undefined : new ServerProcess(child, spec);
  if (!proc) throw new Error(`lockpick: could not start ${spec.name}: ${(await spawnError).message}`);
  recordProcess({ pid: proc.pid, name: spec.name, kind: 'server', match: spec.cwd, dir: owned.dir });
  return proc;
}
