// One client: a child process forked by the runner (so pausing a client is a
// real SIGSTOP that stops its timers, watchdogs and lease arithmetic too).
// It builds the lock, runs its attempts, and tells the parent about every
// operation: an invoke waits for the parent's ack (the event is on disk before
// the operation starts); completions are sent as they happen.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { DefiniteFailure, type Held, type Lock, type LockContext } from '../locks/lock.ts';
import { ResourceClient } from './resource-store.ts';
import { resolveRecipe } from './lock-spec.ts';
import type { FromWorker, RunJob, ToWorker } from './protocol.ts';
import type { Attempt } from '../workload/plan.ts';
import { CRITICAL_SECTION } from '../workload/plan.ts';

let clockOffsetMs = 0;
let stopping = false;
let seq = 0;
let process_ = -1;   // the logical process the parent assigned to our current operation
const waiting = new Map<number, (process?: number) => void>();

function send(m: FromWorker): void {
  process.send?.(m);
}

function ask(m: { t: 'invoke'; f: string; key: string; value?: unknown } | { t: 'point'; name: string }): Promise<number | undefined> {
  const s = ++seq;
  return new Promise((resolve) => {
    waiting.set(s, resolve);
    send({ ...m, seq: s } as FromWorker);
  });
}

async function invoke(f: string, key: string): Promise<void> {
  process_ = (await ask({ t: 'invoke', f, key })) ?? process_;
}

function complete(type: 'ok' | 'fail' | 'info', f: string, key: string, value?: unknown, err?: unknown, extra?: Record<string, unknown>): void {
  const error = err === undefined ? undefined : err instanceof Error ? err.message : String(err);
  send({ t: 'complete', type, f, key, value, error, extra });
}

function tokenNumber(h: Held): number | undefined {
  if (h.token === undefined) return undefined;
  const n = Number(h.token);
  return Number.isFinite(n) ? n : undefined;
}

class Client {
  private stuck = false;   // a release failed for good: this client still holds the lock

  constructor(private readonly job: RunJob, private readonly lock: Lock, private readonly res: ResourceClient) {}

  async runAll(): Promise<void> {
    for (const a of this.job.attempts) {
      if (stopping || this.stuck) break;
      await this.attempt(a);
    }
  }

  private async attempt(a: Attempt): Promise<void> {
    await sleep(a.delayMs);
    if (stopping) return;
    const key = this.job.keyPrefix + a.key;
    const held = await this.acquire(key, a.waitMs);
    if (typeof held !== 'object') return;
    if (await this.criticalSection(held, key, a, tokenNumber(held))) await this.release(held, key);
  }

  /** One recorded acquire: the hold, or 'fail' (certainly not held), or 'info' (unknown: this process ended). */
  private async acquire(key: string, waitMs: number): Promise<Held | 'fail' | 'info'> {
    await invoke('acquire', key);
    let held: Held | null;
    try {
      held = await this.lock.acquire(key, { ttlMs: this.job.ttlMs, waitMs });
    } catch (e) {
      const outcome = e instanceof DefiniteFailure ? 'fail' : 'info';
      complete(outcome, 'acquire', key, undefined, e);
      return outcome;
    }
    if (!held) {
      complete('fail', 'acquire', key);
      return 'fail';
    }
    complete('ok', 'acquire', key, held.token !== undefined ? { token: held.token } : undefined, undefined, { lease_ms: this.job.ttlMs });
    return held;
  }

  /** Read, (pause point), hold, write; false when the hold already ended (renew lost or unknown). */
  private async criticalSection(held: Held, key: string, a: Attempt, token: number | undefined): Promise<boolean> {
    const fence = this.job.fenced ? token : undefined;
    let read: { accepted: boolean; prev: number } | undefined;
    try {
      read = await this.res.read(key, fence, this.job.clientId, process_);
    } catch (e) {
      send({ t: 'log', message: `resource read failed: ${(e as Error).message}` });
    }
    await point(CRITICAL_SECTION);
    if (a.reenter && this.job.reentrant && !(await this.reenter(key))) return false;
    if (a.renew && this.lock.renew) {
      await sleep(a.holdMs / 2);
      if (!(await this.renew(held, key))) return false;
      await sleep(a.holdMs / 2);
    } else {
      await sleep(a.holdMs);
    }
    if (read?.accepted) {
      try {
        await this.res.write(key, fence, read.prev + 1, read.prev, this.job.clientId, process_);
      } catch (e) {
        send({ t: 'log', message: `resource write failed: ${(e as Error).message}` });
      }
    }
    return true;
  }

  /** Locks the held key again and unlocks it once (a reentrant hold); false when this process ended (an info). */
  private async reenter(key: string): Promise<boolean> {
    const inner = await this.acquire(key, 0);
    // Not re-entered ('fail': the hold was lost meanwhile): the outer hold goes on as the client believes it.
    if (typeof inner !== 'object') return inner === 'fail';
    return (await this.release(inner, key)) === 'done';
  }

  private async renew(held: Held, key: string): Promise<boolean> {
    await invoke('renew', key);
    try {
      const r = await this.lock.renew!(held, this.job.ttlMs);
      if (r === 'renewed') {
        complete('ok', 'renew', key);
        return true;
      }
      // Told it no longer holds: a failed renew, then the client stops believing (a lapse).
      complete('fail', 'renew', key, { lost: true });
      await invoke('release', key);
      complete('ok', 'release', key, { lapse: true });
      return false;
    } catch (e) {
      if (e instanceof DefiniteFailure) {
        complete('fail', 'renew', key, undefined, e);
        return true;
      }
      // Unknown: the process ends here (a fresh one goes on); the lease runs out on its own.
      complete('info', 'renew', key, undefined, e);
      return false;
    }
  }

  /** 'done' when answered (ok), 'info' when the outcome is unknown (this process ended), 'stuck' when it kept failing. */
  private async release(held: Held, key: string): Promise<'done' | 'info' | 'stuck'> {
    for (let tries = 0; tries < 3; tries++) {
      await invoke('release', key);
      try {
        const r = await this.lock.release(held);
        complete('ok', 'release', key, r === 'lost' ? { lost: true } : undefined);
        return 'done';
      } catch (e) {
        if (!(e instanceof DefiniteFailure)) {
          complete('info', 'release', key, undefined, e);
          return 'info';
        }
        complete('fail', 'release', key, undefined, e);
        await sleep(50);
      }
    }
    this.stuck = true;
    return 'stuck';
  }
}

let pausePoints: string[] = [];
let started: (() => void) | undefined;

/** The lock's named points: ask the parent only where the plan may pause this client. */
async function point(name: string): Promise<void> {
  if (pausePoints.includes(name)) await ask({ t: 'point', name });
}

async function runJob(job: RunJob): Promise<void> {
  stopping = false;
  clockOffsetMs = job.clockOffsetMs;
  pausePoints = job.pausePoints;
  let lock: Lock | undefined;
  const res = new ResourceClient(job.resource, Math.max(2000, job.commandTimeoutMs));
  let error: string | undefined;
  try {
    const recipe = await resolveRecipe(job.lock);
    const ctx: LockContext = {
      clientId: job.clientId,
      endpoints: job.endpoints,
      sentinels: job.sentinels,
      sentinelName: job.sentinelName,
      natMap: job.natMap,
      clock: { wallMs: () => Date.now() + clockOffsetMs, monoMs: () => performance.now() },
      commandTimeoutMs: job.commandTimeoutMs,
      options: job.options,
      point,
    };
    lock = await recipe.create(ctx);
    // Connecting takes a variable time; the plan's times count from one
    // instant shared with the nemesis, so wait for the parent's 'start'.
    const go = new Promise<void>((resolve) => { started = resolve; });
    send({ t: 'prepared', run: job.run });
    await go;
    await new Client(job, lock, res).runAll();
  } catch (e) {
    error = e instanceof Error ? e.stack ?? e.message : String(e);
  } finally {
    await lock?.close().catch(() => {});
    res.close();
    send({ t: 'done', run: job.run, error });
  }
}

process.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'run': void runJob(m); break;
    case 'ack': waiting.get(m.seq)?.(m.process); waiting.delete(m.seq); break;
    case 'go': waiting.get(m.seq)?.(); waiting.delete(m.seq); break;
    case 'clock': clockOffsetMs = m.offsetMs; break;
    case 'start': started?.(); started = undefined; break;
    case 'stop': stopping = true; started?.(); started = undefined; break;
  }
});
// The runner is gone (even kill -9): a client must not outlive it.
process.on('disconnect', () => process.exit(0));
send({ t: 'ready' });
