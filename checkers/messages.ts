// Plain-words descriptions of lock anomalies, shared by the sweep and the double-holder scan.
import type { Op } from '../src/history/types.ts';
import type { Anomaly } from './types.ts';
import type { Hold, Misstep, Overlap } from './holds.ts';

export const lockName = (key: string) => (key === '' ? 'the lock' : `lock "${key}"`);

const endText = (h: Hold) =>
  h.release
    ? `until its ${h.release.f} at line ${h.release.invokeLine}${h.release.outcome === 'info' ? ' (no answer)' : ''}`
    : h.failedReleases.length
      ? `to the end of the history (its release at line ${h.failedReleases[0]!.invokeLine} failed, so it still held it)`
      : 'to the end of the history (it never released it)';

const defined = (xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined && Number.isFinite(x));

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

function before(m: Misstep): string {
  const prev = m.previous;
  if (!prev) return `process ${m.op.process} never acquired it before`;
  if (prev.release) return `process ${m.op.process}'s hold from line ${prev.acquire.completeLine} had ended with its ${prev.release.f} at line ${prev.release.invokeLine}, and it had not acquired again`;
  return `process ${m.op.process} held it since line ${prev.acquire.completeLine}`;
}

export function misstep(key: string, m: Misstep): Anomaly {
  const op = m.op;
  const base = { key, processes: [op.process], lines: defined([op.invokeLine, op.completeLine]), ops: [op.id, ...(m.previous ? [m.previous.acquire.id] : [])] };
  if (m.kind === 'reacquire') {
    return {
      ...base, type: 'nonlinearizable',
      message: `process ${op.process}'s acquire at line ${op.invokeLine} returned ok, but ${before(m)} and had not released it; an owner-aware mutex is not reentrant`,
    };
  }
  const what = m.kind === 'stale-release' ? 'release' : 'renew';
  return {
    ...base, type: m.kind,
    message: `process ${op.process}'s ${what} of ${lockName(key)} at line ${op.invokeLine} returned ok, but process ${op.process} was not the holder: ${before(m)}`,
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
