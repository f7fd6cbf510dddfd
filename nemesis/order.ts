// An order anchor: an event of the run that a fault or a client step waits for, so a stored
// schedule holds the order of events its failure needed (a pause that begins after c2's acquire
// returned, c3's acquire that starts only once the partition is in place), not only their times.
// Plain JSON, in the plan (FaultSpec.after, Attempt.after); the runner's client pool counts the
// events (src/runner/order-book.ts) and holds the waiter until its event has happened.

/**
 * The nth (1-based) event of one client's operations: `op` ended `type` (or was invoked).
 * `gap_ms`: the waiter goes on that long after the event (the gap the failing run had), not at once.
 */
export interface OpEvent { client: string; op: 'acquire' | 'release' | 'renew'; type: 'invoke' | 'ok' | 'fail'; nth: number; gap_ms?: number }
/** The start of the plan's fault number `fault` (0-based index in plan.faults), and the gap after it. */
export interface FaultEvent { fault: number; gap_ms?: number }
export type OrderEvent = OpEvent | FaultEvent;

const OPS = ['acquire', 'release', 'renew'] as const;
const TYPES = ['invoke', 'ok', 'fail'] as const;
export const ORDER_SHAPE = '{"client": "c1", "op": "acquire"|"release"|"renew", "type": "invoke"|"ok"|"fail", "nth": 1, "gap_ms"?: 0} or {"fault": 0, "gap_ms"?: 0}';
/** The most events of one kind an anchor may count to: more than any plan makes (64 clients, bounded attempts). */
export const MAX_NTH = 100_000;
/** The longest gap after an event: a plan's times stay within an hour. */
export const MAX_GAP_MS = 3_600_000;

export function isFaultEvent(e: OrderEvent): e is FaultEvent {
  return 'fault' in e;
}

/**
 * Checks an anchor read from a file; `fail` throws with the problem in words. `faults`: how many
 * faults the plan has (a fault event names one of them); `clients`: how many clients.
 */
export function checkOrderEvent(x: unknown, clients: number, faults: number, fail: (what: string) => never): OrderEvent {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) fail(`must be an object like ${ORDER_SHAPE}`);
  const e = x as Record<string, unknown>;
  if (e.gap_ms !== undefined && (typeof e.gap_ms !== 'number' || !Number.isFinite(e.gap_ms) || e.gap_ms < 0 || e.gap_ms > MAX_GAP_MS)) fail(`gap_ms must be a number of milliseconds from 0 to ${MAX_GAP_MS} (one hour); got ${JSON.stringify(e.gap_ms)}`);
  const gap = e.gap_ms === undefined ? {} : { gap_ms: e.gap_ms as number };
  if ('fault' in e) {
    for (const k of Object.keys(e)) if (k !== 'fault' && k !== 'gap_ms') fail(`a fault event has only "fault" and "gap_ms", not '${k}'`);
    if (!Number.isSafeInteger(e.fault) || (e.fault as number) < 0 || (e.fault as number) >= faults) fail(`fault must name one of the plan's ${faults} fault(s) by index (0..${Math.max(0, faults - 1)}); got ${JSON.stringify(e.fault)}`);
    return { fault: e.fault as number, ...gap };
  }
  for (const k of Object.keys(e)) if (!['client', 'op', 'type', 'nth', 'gap_ms'].includes(k)) fail(`has only "client", "op", "type", "nth" and "gap_ms", not '${k}': ${ORDER_SHAPE}`);
  const n = typeof e.client === 'string' ? /^c([1-9]\d*)$/.exec(e.client) : null;
  if (!n || Number(n[1]) > clients) fail(`client must be a client of the plan (c1..c${clients}); got ${JSON.stringify(e.client)}`);
  if (!OPS.includes(e.op as never)) fail(`op must be one of ${OPS.join(', ')}; got ${JSON.stringify(e.op)}`);
  if (!TYPES.includes(e.type as never)) fail(`type must be one of ${TYPES.join(', ')}; got ${JSON.stringify(e.type)}`);
  if (!Number.isSafeInteger(e.nth) || (e.nth as number) < 1 || (e.nth as number) > MAX_NTH) fail(`nth must be a whole number from 1 to ${MAX_NTH}; got ${JSON.stringify(e.nth)}`);
  return { client: e.client as string, op: e.op as OpEvent['op'], type: e.type as OpEvent['type'], nth: e.nth as number, ...gap };
}

/** 1st, 2nd, 3rd, 11th, 22nd. */
export const ordinal = (n: number): string => `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;

/** "c2's 1st acquire returned ok", "c1's 2nd release was invoked", "fault #1 (client-pause) began". */
export function describeOrderEvent(e: OrderEvent, faultKind?: (i: number) => string | undefined): string {
  if (isFaultEvent(e)) {
    const kind = faultKind?.(e.fault);
    return `fault #${e.fault + 1}${kind ? ` (${kind})` : ''} began`;
  }
  const what = e.type === 'invoke' ? 'was invoked' : e.type === 'ok' ? 'returned ok' : 'failed';
  return `${e.client}'s ${ordinal(e.nth)} ${e.op} ${what}`;
}

/** The event with its gap: "200 ms after c1's 1st release returned ok". */
export function describeOrderAnchor(e: OrderEvent, faultKind?: (i: number) => string | undefined): string {
  return `${e.gap_ms ? `${e.gap_ms} ms after ` : ''}${describeOrderEvent(e, faultKind)}`;
}
