// Every outcome counted and named (issue 41). A lock whose waiters raise on every acquire that
// meets a held lock shows no double holder: the raises end each wait before it could go wrong.
// So each operation kind is counted by how it ended (ok, fail: certainly not done, info:
// unknown), the errors behind fail and info are grouped by message, and each acquire error is
// judged: raised while a fault touched its client (the fault doing its work: a timeout under a
// partition), or unexplained. Many unexplained errors make a search inconclusive: the lock was
// not exercised as its users would use it. Read from the history alone, as fault-effects.ts is.
import { addCounts, getOwn, setOwn } from '../own-key.ts';
import type { HistoryEvent, NemesisEvent, Op } from '../history/types.ts';
import { faultPeriods, type FaultPeriod } from './cause.ts';
import { cutPairs, parseGrudge } from '../../nemesis/grudge.ts';
import { clientsAimed } from '../runner/fault-effects.ts';

export interface OutcomeCounts { ok: number; fail: number; info: number }

/** One run's outcomes, or a search's summed (Coverage.outcomes). */
export interface Outcomes {
  /** Per operation kind (acquire, release, renew): how each ended. info counts an operation left unanswered too; a lapse is no release. */
  ops: Record<string, OutcomeCounts>;
  /** The errors behind fail and info outcomes of every kind, by message (errorWords) → operations. */
  errors: Record<string, number>;
  /** Acquires that ended with an error while no fault touched their client or its links. */
  unexplained: number;
  /** Those errors by message. */
  unexplainedErrors: Record<string, number>;
  /** Acquires that ended with an error while a fault touched their client: the faults doing their work. */
  underFault: number;
  /** Acquires that met a held lock and got no definite answer (checkers/stats.ts). */
  unansweredWaiters: number;
}

export const emptyOutcomes = (): Outcomes => ({ ops: {}, errors: {}, unexplained: 0, unexplainedErrors: {}, underFault: 0, unansweredWaiters: 0 });

/**
 * A search is not SAFE when at least this share of its acquires, and at least MIN_UNEXPLAINED of
 * them, raised errors no fault explains. A few stray errors (a reconnect) leave the promise
 * standing; a lock that raises on one acquire in ten was not tested as it is used.
 */
export const UNEXPLAINED_SHARE = 0.1;
export const MIN_UNEXPLAINED = 3;

/** Longest message kept: a stack or a dump must not swamp the summary. */
const MAX_WORDS = 160;

/**
 * An error message as it is grouped: its first line, without the operation's own prefix (a
 * process client's "acquire: "), ids and numbers as ID and N (so equal messages of different
 * keys, runs and times group, as coverage.ts counts inconclusive reasons), at most MAX_WORDS long.
 */
export function errorWords(message: string, f = ''): string {
  const first = message.split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? '';
  const own = f && first.startsWith(`${f}: `) ? first.slice(f.length + 2) : first;
  const words = own
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, 'ID')
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, 'ID')   // hex ids and tokens
    .replace(/\d+/g, 'N')
    .replace(/\s+/g, ' ');
  return words.length > MAX_WORDS ? `${words.slice(0, MAX_WORDS - 1)}…` : words || '(no message)';
}

const isClient = (t: string) => /^c\d+$/.test(t);

/** The clients a fault names: its start record's `clients` or `client:<id>` target (fault-effects.ts), else those its target and grudge name. */
const clientsOf = (p: FaultPeriod): string[] => [...new Set([...clientsAimed(p.value) ?? [], ...p.clients])];

/** Whether a fault reaches every client: it names none (a server's kill, a partition of servers), or its grudge cuts servers from each other. */
function touchesAll(p: FaultPeriod): boolean {
  if (clientsOf(p).length === 0) return true;
  const grudge = (p.value.params as Record<string, unknown> | undefined)?.grudge;
  if (p.value.target !== 'grudge' || typeof grudge !== 'string') return false;
  try {
    return cutPairs(parseGrudge(grudge)).some(([a, b]) => !isClient(a) && !isClient(b));
  } catch {
    return true;   // a grudge this cannot read: assume it reached everyone (never call an error unexplained on a guess)
  }
}

/** When a fault began touching clients: its start's `began` (a cut can close connections before its record), else its period's start. */
const fromOf = (p: FaultPeriod): number => (typeof p.value.began === 'number' ? Math.min(p.value.began, p.start) : p.start);

/** Whether a fault was on at some time of [from, to] for this client (undefined: the client or the times are not known). */
export function faultTouched(periods: readonly FaultPeriod[], client: string | undefined, from: number | undefined, to: number | undefined): boolean {
  return periods.some((p) => (client === undefined || touchesAll(p) || clientsOf(p).includes(client))
    && (from === undefined || to === undefined || (fromOf(p) <= to && (p.end ?? Infinity) + AFTER_HEAL_NS >= from)));
}

/**
 * How long after a heal an error is still the fault's doing: a client library reconnects with a
 * backoff (gRPC's first is 1 s), so an acquire that begins just after the links came back may
 * still fail on the connection the cut broke.
 */
const AFTER_HEAL_NS = 1_000 * 1e6;

const isLapse = (v: unknown) => typeof v === 'object' && v !== null && (v as { lapse?: unknown }).lapse === true;

function countOp(o: Outcomes, f: string, type: 'ok' | 'fail' | 'info'): void {
  let c = getOwn(o.ops, f);
  if (!c) setOwn(o.ops, f, (c = { ok: 0, fail: 0, info: 0 }));
  c[type]++;
}

const bump = (into: Record<string, number>, key: string) => setOwn(into, key, (getOwn(into, key) ?? 0) + 1);

/**
 * One run's outcomes from its events (in real-time order, as the recorder wrote them). A process
 * has one operation open at a time: its invoke names the client (`client`), its completion may
 * carry `error`. Nemesis start/stop records give the faults' periods (report/cause.ts).
 */
export function runOutcomes(events: readonly HistoryEvent[]): Outcomes {
  const o = emptyOutcomes();
  const nemesis: NemesisEvent[] = [];
  events.forEach((e, i) => { if (e.process === 'nemesis') nemesis.push({ line: i + 1, seq: i, f: e.f, type: e.type, value: e.value, time: e.time }); });
  const periods = faultPeriods(nemesis);
  const open = new Map<number, { f: string; client?: string; from?: number }>();
  for (const e of events) {
    if (typeof e.process !== 'number') continue;
    if (e.type === 'invoke') {
      open.set(e.process, { f: e.f, ...(typeof e.client === 'string' ? { client: e.client } : {}), ...(e.time !== undefined ? { from: e.time } : {}) });
      continue;
    }
    const inv = open.get(e.process);
    open.delete(e.process);
    if (e.f === 'release' && isLapse(e.value)) continue;   // the end of a belief the worker recorded, not a release asked of the lock
    countOp(o, e.f, e.type);
    if (e.type === 'ok' || typeof e.error !== 'string') continue;
    const words = errorWords(e.error, e.f);
    bump(o.errors, words);
    if (e.f !== 'acquire') continue;
    if (faultTouched(periods, inv?.client, inv?.from, e.time)) o.underFault++;
    else { o.unexplained++; bump(o.unexplainedErrors, words); }
  }
  for (const inv of open.values()) countOp(o, inv.f, 'info');   // unanswered when the history ends
  return o;
}

/**
 * The outcome counts of a parsed history's ops (`lockpick report` of a file: its ops carry no
 * error messages, so only the counts).
 */
export function opOutcomes(ops: readonly Op[]): Outcomes {
  const o = emptyOutcomes();
  for (const op of ops) if (!(op.f === 'release' && isLapse(op.value))) countOp(o, op.f, op.outcome);
  return o;
}

/** Adds a run's (or a shard's) outcomes into a search's; an absent one (a results.json from before they were counted) adds nothing. */
export function addOutcomes(into: Outcomes, add: Partial<Outcomes> | undefined): void {
  if (!add) return;
  for (const [f, c] of Object.entries(add.ops ?? {})) {
    const mine = getOwn(into.ops, f) ?? { ok: 0, fail: 0, info: 0 };
    setOwn(into.ops, f, { ok: mine.ok + (c.ok ?? 0), fail: mine.fail + (c.fail ?? 0), info: mine.info + (c.info ?? 0) });
  }
  addCounts(into.errors, add.errors ?? {});
  addCounts(into.unexplainedErrors, add.unexplainedErrors ?? {});
  into.unexplained += add.unexplained ?? 0;
  into.underFault += add.underFault ?? 0;
  into.unansweredWaiters += add.unansweredWaiters ?? 0;
}

/** The n most frequent messages, most first (ties in the order first seen: numbers in a message are N, so no key reorders as an integer). */
export function topErrors(errors: Record<string, number>, n = 3): [string, number][] {
  return Object.entries(errors).sort((a, b) => b[1] - a[1]).slice(0, n);
}

/**
 * The gap a search's unexplained errors leave (none under the threshold), e.g. "the lock was not
 * exercised as its users would: 22 of 65 acquires raised TypeError: …".
 */
export function errorGaps(o: Outcomes, acquires: number): string[] {
  if (o.unexplained < MIN_UNEXPLAINED || o.unexplained < UNEXPLAINED_SHARE * acquires) return [];
  const [words, n] = topErrors(o.unexplainedErrors, 1)[0] ?? ['errors', o.unexplained];
  const rest = o.unexplained - n;
  return [`the lock was not exercised as its users would: ${n} of ${acquires} acquires raised ${words}${rest > 0 ? `; ${rest} more raised other errors` : ''} (no fault touched their clients)`];
}

const counts = (c: OutcomeCounts) => `${c.ok} ok, ${c.fail} fail, ${c.info} unknown`;

/** The outcome kinds in their usual order (acquire, release, renew, then any other). */
function kindsOf(o: Outcomes): [string, OutcomeCounts][] {
  const order = ['acquire', 'release', 'renew'];
  return Object.entries(o.ops).sort((a, b) => (order.indexOf(a[0]) + 1 || 9) - (order.indexOf(b[0]) + 1 || 9));
}

/** JUnit properties (a CI server's test page shows them): the outcome counts, the errors, the unexplained ones; none when nothing was counted. */
export function outcomeProperties(o: Outcomes | undefined): Record<string, string | number> {
  if (!o || Object.keys(o.ops).length === 0) return {};
  const top = topErrors(o.errors);
  return {
    outcomes: kindsOf(o).map(([f, c]) => `${f} ${counts(c)}`).join('; '),
    ...(top.length ? { errors: top.map(([m, n]) => `${n}× ${m}`).join('; ') } : {}),
    unexplained_acquire_errors: o.unexplained, acquire_errors_under_faults: o.underFault,
  };
}

/**
 * The outcome lines of the summary (empty when nothing was counted), e.g.
 *   outcomes: acquire 43 ok, 0 fail, 22 unknown; release 41 ok, 0 fail, 0 unknown
 *   errors: 22× TypeError: unsupported operand …
 *   22 acquire error(s) while no fault touched the client; 3 acquire error(s) while a fault touched the client: the faults doing their work
 */
export function describeOutcomes(o: Outcomes): string[] {
  const kinds = kindsOf(o);
  if (kinds.length === 0) return [];
  const lines = [`outcomes: ${kinds.map(([f, c]) => `${f} ${counts(c)}`).join('; ')}${o.unansweredWaiters ? `; ${o.unansweredWaiters} waiter(s) that met a held lock got no definite answer` : ''}`];
  const top = topErrors(o.errors);
  const more = Object.keys(o.errors).length - top.length;
  if (top.length) lines.push(`errors: ${top.map(([m, n]) => `${n}× ${m}`).join('; ')}${more > 0 ? `; ${more} other message(s)` : ''}`);
  const said = [
    o.unexplained ? `${o.unexplained} acquire error(s) while no fault touched the client` : '',
    o.underFault ? `${o.underFault} acquire error(s) while a fault touched the client: the faults doing their work` : '',
  ].filter(Boolean);
  if (said.length) lines.push(said.join('; '));
  return lines;
}
