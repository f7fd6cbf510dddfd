// Plain-words descriptions of lock anomalies, shared by the sweep, the double-holder scan and the
// stale-unlock naming. Where the cause depends on how the lock is built (a Redis key, a ZooKeeper
// sequential znode, a MySQL row), the words follow the backend; without one they stay neutral.
import type { Op } from '../src/history/types.ts';
import type { Anomaly, Backend } from './types.ts';
import { backendWords } from './backends.ts';
import type { Belief, HoldEnd, Misstep, Overlap, ServerHold } from './holds.ts';
import { overstatedMs } from './validity.ts';

export const lockName = (key: string) => (key === '' ? 'the lock' : `lock "${key}"`);

const endText = (b: Belief) =>
  b.expired
    ? `until the validity its lock reported ran out (${(b.validGrant ?? b.acquire).validMs} ms after line ${(b.validGrant ?? b.acquire).completeLine}${b.validGrant && b.validGrant !== b.acquire ? `, its ${b.validGrant.f}` : ''})`
    : b.release
    ? `until its ${b.release.f} at line ${b.release.invokeLine}${b.release.outcome === 'info' ? ' (no answer)' : b.failed ? ' (which failed: it had left its critical section, though the server kept its lock)' : ''}`
    : 'to the end of the history (it never released it)';

const defined = (xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined && Number.isFinite(x));
const ms = (ns: number) => Math.round(ns / 1e6);

export function doubleHolder(key: string, { first, second }: Overlap): Anomaly {
  const endOp = first.end <= second.end ? first.release : second.release;
  const lines = defined([first.acquire.completeLine, second.acquire.completeLine, endOp?.invokeLine]);
  const times = defined([second.acquire.completeTime, endOp?.invokeTime]);
  const ops = [first.acquire.id, second.acquire.id, ...defined([first.release?.id, second.release?.id])];
  return {
    type: 'double-holder',
    key,
    processes: [first.process, second.process],
    lines,
    ...(times.length ? { times } : {}),
    ops,
    message:
      `process ${second.process}'s acquire at line ${second.acquire.invokeLine} returned ok at line ${second.acquire.completeLine}, ` +
      `but process ${first.process} held ${lockName(key)} since line ${first.acquire.completeLine} (acquire ok) ` +
      `${endText(first)}: both held it from line ${second.acquire.completeLine} ` +
      `${endOp ? `to line ${endOp.invokeLine}` : 'to the end of the history'}`,
  };
}

/** The lease in words: "its 800 ms lease (from line 5)". */
function leaseText(h: ServerHold): string {
  const lms = h.leaseFrom.leaseMs ?? (h.lease === undefined ? undefined : h.lease / 1e6);
  const from = h.leaseFrom.f === 'renew' ? `renewed at line ${h.leaseFrom.invokeLine}` : `from line ${h.leaseFrom.invokeLine}`;
  return `its ${lms === undefined ? '' : `${lms} ms `}lease (${from})`;
}

/** Why the server still held h when op (an acquire) returned. */
function stillHeld(h: ServerHold, op: Op): string {
  const kept = h.failed ? `its release at line ${h.failed.invokeLine} failed` : 'it had not released it';
  if (h.deadline !== Infinity) {
    const early = op.completeTime === undefined ? '' : `; it could run out at ${ms(h.deadline)} ms, this acquire returned at ${ms(op.completeTime)} ms`;
    return `${kept} and ${leaseText(h)} had not run out${early}`;
  }
  if (h.lease !== undefined) return `${kept} and its lease cannot be timed (no "time" on its acquire line)`;
  return `${kept} and it has no lease`;
}

function before(p: number, prev: HoldEnd | undefined): string {
  if (!prev) return `process ${p} never acquired it before`;
  if (prev.release) return `process ${p}'s hold from line ${prev.hold.acquire.completeLine} had ended with its ${prev.release.f} at line ${prev.release.invokeLine}, and it had not acquired again`;
  const since = `process ${p}'s hold from line ${prev.hold.acquire.completeLine}`;
  return prev.expired
    ? `${since} had ended: ${leaseText(prev.hold)} had run out and process ${prev.by.process} acquired it at line ${prev.by.completeLine}`
    : `${since} had been taken: process ${prev.by.process} acquired it at line ${prev.by.completeLine} while process ${p} still held it`;
}

/** What a stale unlock did, by backend: the cause lies in how the unlock finds its lock. */
export function staleUnlockEffect(backend: Backend | undefined, victim: number): string {
  return backendWords(backend)?.staleUnlock(victim) ?? `the unlock freed the lock, which by then was process ${victim}'s`;
}

/** once: why acquiring again while holding is wrong, in the lock's words. */
export function misstep(key: string, m: Misstep, backend?: Backend, once = 'an owner-aware mutex is not reentrant'): Anomaly {
  const op = m.op;
  const p = op.process;
  if (m.kind === 'expired-grant') {
    return {
      type: 'expired-grant', key, processes: [p],
      lines: defined([op.invokeLine, op.completeLine]), ops: [op.id],
      ...(op.completeTime !== undefined ? { times: [op.completeTime] } : {}),
      message: `process ${p}'s ${op.f} of ${lockName(key)} at line ${op.invokeLine} returned ok at line ${op.completeLine} with its validity already over ` +
        `(valid_ms ${op.validMs}: ${-op.validMs!} ms past the end it reported` +
        `${op.invokeTime !== undefined && op.completeTime !== undefined ? `, after ${op.f === 'acquire' ? 'an acquire' : 'a renew'} of ${ms(op.completeTime - op.invokeTime)} ms` : ''}): ` +
        (op.f === 'acquire'
          ? 'a lock must not hand out a hold that has run out; a careful client cannot use it, a careless one works without the lock'
          : 'a lock must not say it renewed a hold that has run out (answer that it is lost); a careful client stops, a careless one works without the lock'),
    };
  }
  if (m.kind === 'overstated-validity') {
    const lease = m.leaseMs ?? op.leaseMs!;
    const over = overstatedMs(op, lease)!;
    return {
      type: 'overstated-validity', key, processes: [p],
      lines: defined([op.invokeLine, op.completeLine]), ops: [op.id],
      ...(op.completeTime !== undefined ? { times: [op.completeTime] } : {}),
      message: `process ${p}'s ${op.f} of ${lockName(key)} at line ${op.invokeLine} returned ok at line ${op.completeLine} reporting ${op.validMs} ms of validity, ` +
        `but its ${lease} ms lease had at most ${lease - op.sentMs!} ms left: its last request went out ${op.sentMs} ms before the ${op.f} returned ` +
        `(${over} ms overstated): a lock must count its validity from before its requests went out; a careful client trusting it works on after the lock may be gone`,
    };
  }
  if (m.kind === 'held' || m.kind === 'reacquire') {
    const h = m.holder!;
    const lines = defined([h.acquire.completeLine, h.failed?.invokeLine, op.completeLine]);
    const base = { type: 'nonlinearizable' as const, key, lines, ops: [h.acquire.id, ...defined([h.failed?.id]), op.id], ...(op.completeTime !== undefined ? { times: [op.completeTime] } : {}) };
    if (m.kind === 'reacquire') {
      return {
        ...base, processes: [p],
        message: `process ${p}'s acquire at line ${op.invokeLine} returned ok, but process ${p} held ${lockName(key)} since line ${h.acquire.completeLine} and had not released it` +
          `${h.deadline === Infinity ? '' : ` (and ${leaseText(h)} had not run out)`}; ${once}`,
      };
    }
    return {
      ...base, processes: [h.process, p],
      message: `process ${p} acquired ${lockName(key)} at line ${op.completeLine} while process ${h.process}'s lock was still held at the server: ${stillHeld(h, op)}`,
    };
  }
  const what = m.kind === 'stale-release' ? 'release' : 'renew';
  const taker = m.previous?.by?.process;
  let message = `process ${p}'s ${what} of ${lockName(key)} at line ${op.invokeLine} returned ok, but process ${p} was not the holder: ${before(p, m.previous)}`;
  if (m.kind === 'stale-release' && taker !== undefined && m.current?.process === taker) message += `; ${staleUnlockEffect(backend, taker)}`;
  return {
    type: m.kind, key,
    processes: taker === undefined ? [p] : [p, taker],
    lines: defined([op.invokeLine, op.completeLine]),
    ops: [op.id, ...(m.previous ? [m.previous.hold.acquire.id] : [])],
    message,
  };
}

export function staleToken(key: string, earlier: Op, later: Op, earlierToken: unknown, laterToken: unknown): Anomaly {
  return {
    type: 'stale-token', key,
    processes: [earlier.process, later.process],
    lines: [earlier.completeLine, later.completeLine],
    ops: [earlier.id, later.id],
    message:
      `process ${later.process}'s acquire of ${lockName(key)} returned token ${String(laterToken)} at line ${later.completeLine}, ` +
      `but process ${earlier.process} had already been given token ${String(earlierToken)} at line ${earlier.completeLine}: ` +
      'fencing tokens must grow with every acquire',
  };
}

/**
 * A belief its client acted on after its lease (Belief.exposedBy): the lock could have gone to
 * another client by then, whether or not one took it (docs/checking.md, "Exposure").
 */
export function exposure(key: string, b: Belief): Anomaly {
  const act = b.exposedBy!;
  const quiet = b.exposedSilence;
  if (quiet && b.heardFor) {
    const bound = ms(b.heardFor.ns);
    return {
      type: 'exposure', key,
      processes: [b.process],
      lines: defined([b.acquire.completeLine, act.invokeLine]),
      times: defined([b.acquire.completeTime, quiet.from, quiet.to, act.invokeTime]),
      ops: [b.acquire.id, act.id],
      message: `process ${b.process} held ${lockName(key)} since line ${b.acquire.completeLine} and was kept from the servers for ${ms(quiet.to - quiet.from)} ms, ` +
        `longer than its ${b.heardFor.what === 'session' ? `${bound} ms session` : `${bound} ms lease, which its lock keeps alive only while it is heard`}, ` +
        `yet it still believed it held the lock when it invoked its ${act.f} at line ${act.invokeLine}: the lock could have been given to another client while it believed it held it`,
    };
  }
  const grant = b.leaseGrant ?? b.acquire;
  const lease = grant.leaseMs ?? b.acquire.leaseMs;
  const past = act.invokeTime !== undefined && b.leaseUntil !== undefined ? ms(act.invokeTime - b.leaseUntil) : undefined;
  const since = grant === b.acquire ? `its acquire returned ok at line ${grant.completeLine}` : `its renew returned ok at line ${grant.completeLine}`;
  const lost = act.f === 'release' && act.outcome === 'ok' && (act.value as { lost?: unknown } | null | undefined)?.lost === true;
  return {
    type: 'exposure', key,
    processes: [b.process],
    lines: defined([b.acquire.completeLine, grant === b.acquire ? undefined : grant.completeLine, act.invokeLine]),
    times: defined([b.acquire.completeTime, b.leaseUntil, act.invokeTime]),
    ops: [b.acquire.id, ...(grant === b.acquire ? [] : [grant.id]), act.id],
    message: `process ${b.process} still believed it held ${lockName(key)} when it invoked its ${act.f} at line ${act.invokeLine}, ` +
      `${past === undefined ? '' : `${past} ms `}past its ${lease === undefined ? '' : `${lease} ms `}lease (${since}): ` +
      `the lock could have been given to another client while it believed it held it` +
      `${lost ? `; the ${act.f} came back lost (the server had let it go)` : ''}`,
  };
}
