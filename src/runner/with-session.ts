// Opening a run's session and always closing it: the body runs with its servers up, and an
// interrupt (SIGINT/SIGTERM/SIGHUP for the CLI, an AbortSignal for the library) first stores
// what was found, then ends the run with the exit code the contract gives it.
import type { Verdict } from '../../checkers/types.ts';
import { claimSignals } from '../env/lifecycle.ts';
import { Session, type SessionOptions } from './session.ts';

/**
 * The CLI sets `exitOnSignal`: SIGINT/SIGTERM/SIGHUP store what was found (results.json
 * with `interrupted` and the reason) and exit 130 for Ctrl-C, else 1 when a violation was
 * seen, 3 otherwise (the environment's own signal handler stands aside meanwhile). The library API
 * never does; it passes `signal`: an abort stores what was found, stops the servers,
 * then rejects with the signal's reason (an AbortError unless the caller gave one).
 */
export interface Interrupts {
  exitOnSignal?: boolean;
  signal?: AbortSignal;
  /** --json: a signal's exit prints what was stored (results.json's content) on stdout too. */
  json?: boolean;
}

/** process.exit once stdout and stderr took what was written (a pipe would lose the last lines). */
export function exitFlushed(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** What an aborted library run rejects with: the signal's own reason, else an AbortError. */
export function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new DOMException(typeof r === 'string' ? r : 'lockpick run aborted', 'AbortError');
}

/** What an interrupt stored (results.json's content): its verdict picks the exit code. */
export type Interrupted = { verdict: Verdict } & Record<string, unknown>;

/** The signals that end a CLI run: each stores what was found first (SIGHUP: the terminal went away). */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * The exit code of a run a signal ended: Ctrl-C is 130 (README "Exit codes"); any other
 * signal (a CI job cancelled, a timeout's SIGTERM) gives the verdict found so far:
 * 1 when a violation was already seen, else 3 (inconclusive), never a code outside the contract.
 */
export function interruptedExit(sig: NodeJS.Signals, verdict: Verdict | undefined): number {
  if (sig === 'SIGINT') return 130;
  return verdict === false ? 1 : 3;
}

/**
 * Runs the session body and always tears the session down. On an interrupt
 * (Interrupts: SIGINT/SIGTERM/SIGHUP for the CLI, the AbortSignal for the library)
 * `onInterrupt` first stores what was found so far (results.json, with the reason),
 * after an `interrupted` nemesis event closes every history file the session wrote.
 */
export async function withSession<T>(o: SessionOptions, ctl: Interrupts, body: (s: Session) => Promise<T>, onInterrupt: (reason: string) => Promise<Interrupted | void> = async () => {}): Promise<T> {
  ctl.signal?.throwIfAborted();
  let session: Session | undefined;
  let interrupted: NodeJS.Signals | 'abort' | undefined;
  let closing: Promise<void> | undefined;   // the teardown an interrupt started
  let verdict: Verdict | undefined;         // what the interrupt stored
  let rejectAborted: (e: Error) => void = () => {};
  const aborted = new Promise<never>((_, reject) => { rejectAborted = reject; });
  aborted.catch(() => {});   // raced below; unobserved when the body wins
  /** Stores what was found (the reason in the history and results.json); a signal then exits with its code. */
  const store = (sig: NodeJS.Signals | 'abort'): Promise<void> => {
    const reason = sig === 'abort' ? 'aborted (AbortSignal)' : `interrupted by ${sig}`;
    session?.markInterrupted(reason);
    let found: Interrupted | void;
    const stored = onInterrupt(reason).then((r) => { found = r; verdict = r?.verdict; }, (e: unknown) => {
      if (sig !== 'abort') process.stderr.write(`lockpick: could not store the results: ${(e as Error).message}\n`);
    });
    if (sig === 'abort') return stored;
    return stored.then(() => {
      if (ctl.json && found) process.stdout.write(`${JSON.stringify({ ...found, exitCode: interruptedExit(sig, found.verdict) })}\n`);
    });
  };
  const finish = (sig: NodeJS.Signals | 'abort') => {
    closing = store(sig).finally(() => (session?.close() ?? Promise.resolve()).catch(() => {}));
    if (sig === 'abort') void closing.finally(() => rejectAborted(abortReason(ctl.signal!)));
    else void closing.finally(() => exitFlushed(interruptedExit(sig, verdict)));
  };
  // Installed before the servers start: an interrupt while they come up waits for them, then stops them.
  const onSignal = (sig: NodeJS.Signals | 'abort') => {
    if (interrupted) return;
    interrupted = sig;
    if (session) finish(sig);
  };
  const onAbort = () => onSignal('abort');
  let release = () => {};
  if (ctl.exitOnSignal) {
    for (const s of STOP_SIGNALS) process.on(s, onSignal);
    release = claimSignals();   // the environment's own handler would exit before the results are stored
  }
  ctl.signal?.addEventListener('abort', onAbort, { once: true });
  const detach = () => {
    if (ctl.exitOnSignal) {
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
      release();
    }
    ctl.signal?.removeEventListener('abort', onAbort);
  };
  try {
    try {
      session = await Session.open(o);
    } catch (e) {
      if (interrupted === 'abort') throw abortReason(ctl.signal!);
      // The servers did not come up (the signal reached them too): what was asked is stored all the same.
      if (interrupted) {
        const sig = interrupted;
        await store(sig);
        exitFlushed(interruptedExit(sig, verdict));
        return await new Promise<never>(() => {});
      }
      throw e;
    }
    if (interrupted) {
      finish(interrupted);
      return await aborted;   // a signal: finish() exits the process; an abort rejects once the servers are down
    }
    try {
      return await Promise.race([body(session), aborted]);
    } catch (e) {
      // The run in flight fails as its servers go away: the abort is the reason, not that failure.
      if (interrupted === 'abort') throw abortReason(ctl.signal!);
      // A signal: finish() stores what was found and exits (130, else 1 or 3); this failure is only its echo.
      if (interrupted) return await new Promise<never>(() => {});
      throw e;
    }
  } finally {
    if (interrupted === 'abort') {
      detach();
      await closing;   // servers down before the promise settles
    } else if (!interrupted) {
      detach();
      await session?.close();
    }
  }
}
