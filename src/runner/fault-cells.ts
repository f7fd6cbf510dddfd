// Fault-space coverage: which of the lock's instants met which fault kind while another
// client was waiting. A *cell* is a fault kind × where it landed × whether another client was
// waiting on the lock meanwhile, read from a run's history alone:
//
// - where it landed: for a fault anchored at a client's point, the point (a learned I/O point
//   such as 'send:release:2', or a named one: 'in-critical-section', 'before-release', a
//   recipe's own); for any other fault, the *phase* its clients were in when it began
//   ('acquire', 'holding', 'release', or 'idle'): the clients it names, or for a fault of
//   servers every client (the most engaged one: release, then holding, then acquire). A point
//   names the operation it hits ('send:release:2' a release; the critical section and the
//   write the hold; 'before-release' a release), so the operation is part of the place; the
//   operation a recipe's own point met is kept beside the cell (CellHit.op).
// - waiting: an acquire of another client was pending on a key the client it hit held or
//   worked on, while the fault lasted (for a fault of servers: any two clients on one key).
//
// A cell's name: `client-pause@send:release:2/waiting`, `kill@holding/alone`. Which cells a
// search could draw (the cells *known*) is src/workload/cell-space.ts; the grid
// (src/report/cells-html.ts) and the coverage line below read a CellCoverage.
import { getOwn, setOwn } from '../own-key.ts';
import type { HistoryEvent, NemesisEvent } from '../history/types.ts';
import { faultPeriods } from '../report/cause.ts';
import { clientSpans, clientsAimed, type ClientSpan } from './fault-effects.ts';
import { PHASES, cellName, parseCell, type Cell, type Phase } from '../workload/cell.ts';

export { PHASES, cellName, parseCell, type Cell, type Phase };

/** One fault of a run, as a cell, with the operation its client was in when it began. */
export interface CellHit extends Cell {
  op: Phase;
}

/** A search's cells: the ones it could draw, and how many faults landed in each (known or not). */
export interface CellCoverage {
  /** The cells the search could draw (cell-space.ts), by name, in grid order. */
  known: string[];
  /** Faults per cell, in conclusive runs (a cell outside `known` too: a fault of an aim, a rare timing). */
  hits: Record<string, number>;
}

/** The more engaged of two phases: a release (the hand-over), then a hold, then an acquire. */
const RANK: Record<Phase, number> = { idle: 0, acquire: 1, holding: 2, release: 3 };
/** A span's phase: a renew is part of the hold. */
const phaseOf = (s: ClientSpan): Phase => (s.what === 'acquire' ? 'acquire' : s.what === 'release' ? 'release' : 'holding');

/** The phase of the clients named (all clients: `clients` undefined) at time t, the most engaged. */
function phaseAt(spans: readonly ClientSpan[], clients: readonly string[] | undefined, t: number): Phase {
  let best: Phase = 'idle';
  for (const s of spans) {
    if (s.what === 'other' || (clients && !clients.includes(s.client)) || s.from > t || s.to < t) continue;
    const p = phaseOf(s);
    if (RANK[p] > RANK[best]) best = p;
  }
  return best;
}

/** Whether, within [from, to], an acquire of one client was pending on a key another client (among `clients`, all when undefined) held or worked on, at the same time. */
function waitingDuring(spans: readonly ClientSpan[], clients: readonly string[] | undefined, from: number, to: number): boolean {
  const within = spans.filter((s) => s.key !== undefined && s.what !== 'other' && s.from <= to && s.to >= from);
  const hit = within.filter((s) => !clients || clients.includes(s.client));
  return within.some((a) => a.what === 'acquire' && hit.some((b) => b.client !== a.client && b.key === a.key
    && Math.max(a.from, b.from, from) <= Math.min(a.to, b.to, to)));
}

/**
 * A run's faults as cells, from its history: each `<kind>-start` with its stop (faultPeriods), the
 * point it fired at (its record's `point` or `params.point`, or for a server fault anchored at a
 * client's point the `anchor-reached` record just before it), and the clients' spans.
 */
export function cellsOfRun(events: readonly HistoryEvent[]): CellHit[] {
  const nemesis: NemesisEvent[] = [];
  events.forEach((e, i) => { if (e.process === 'nemesis') nemesis.push({ line: i + 1, seq: i, f: e.f, type: e.type, value: e.value, time: e.time }); });
  // A server fault anchored at a client's point: `anchor-reached` {client, point, kind}, then the kind's own start.
  const anchors = nemesis.filter((e) => e.f === 'anchor-reached' && e.time !== undefined).map((e) => {
    const v = (e.value ?? {}) as Record<string, unknown>;
    return { kind: String(v.kind ?? ''), client: typeof v.client === 'string' ? v.client : undefined, point: typeof v.point === 'string' ? v.point : undefined, time: e.time!, used: false };
  });
  const spans = clientSpans(events);
  const out: CellHit[] = [];
  for (const p of faultPeriods(nemesis)) {
    let point = p.point;
    let clients: string[] | undefined = [...new Set([...p.clients, ...(clientsAimed(p.value) ?? [])])].filter((c) => c !== 'all');
    if (!point) {
      const a = anchors.find((x) => !x.used && x.kind === p.kind && x.time <= p.effect);
      if (a) { a.used = true; point = a.point; if (a.client && clients.length === 0) clients = [a.client]; }
    }
    // A fault of servers that names no client: what every client was doing.
    if (clients.length === 0) clients = undefined;
    const op = phaseAt(spans, clients, p.start);
    out.push({ kind: p.kind, place: point ?? op, waiting: waitingDuring(spans, clients, p.start, p.end ?? Infinity), op });
  }
  return out;
}

export function emptyCells(known: readonly string[] = []): CellCoverage {
  return { known: [...known], hits: {} };
}

/** Counts a run's cells into the map (a cell's name holds a kind and a point a history named: own keys only). */
export function addCells(c: CellCoverage, cells: readonly Cell[]): void {
  for (const x of cells) { const n = cellName(x); setOwn(c.hits, n, (getOwn(c.hits, n) ?? 0) + 1); }
}

/** Several maps as one (shards of one search): hits summed, the known cells of all of them. */
export function sumCells(all: readonly (CellCoverage | undefined)[]): CellCoverage | undefined {
  const maps = all.filter((c): c is CellCoverage => c !== undefined && typeof c === 'object' && Array.isArray(c.known));
  if (maps.length === 0) return undefined;
  const out = emptyCells([...new Set(maps.flatMap((m) => m.known))]);
  for (const m of maps) for (const [k, n] of Object.entries(m.hits ?? {})) if (typeof n === 'number') setOwn(out.hits, k, (getOwn(out.hits, k) ?? 0) + n);
  return out;
}

/** How much of the known space was hit: the known cells hit, their number, the percentage (floor, so 99.9 % is not 100), the ones never hit. */
export function cellStats(c: CellCoverage): { hit: number; known: number; percent: number; missing: string[]; extra: string[] } {
  const missing = c.known.filter((k) => !((getOwn(c.hits, k) ?? 0) > 0));
  const hit = c.known.length - missing.length;
  const known = new Set(c.known);
  return {
    hit, known: c.known.length, percent: c.known.length === 0 ? 100 : Math.floor((100 * hit) / c.known.length),
    missing, extra: Object.keys(c.hits).filter((k) => !known.has(k)),
  };
}

/** At most this many missing cells are named in the coverage line; the rest are counted. */
export const MAX_NAMED = 8;

/** "coverage: 17 of 24 cells (70 %); never hit: client-pause@send:release:2/waiting, … and 3 more". */
export function describeCells(c: CellCoverage, max = MAX_NAMED): string {
  const s = cellStats(c);
  if (s.known === 0) return 'coverage: no fault cells to cover (no fault kinds asked for)';
  const named = s.missing.slice(0, max);
  const rest = s.missing.length - named.length;
  return `coverage: ${s.hit} of ${s.known} cells (${s.percent} %)${named.length ? `; never hit: ${named.join(', ')}${rest > 0 ? `, … and ${rest} more` : ''}` : ''}`;
}

/** results.json's and --json's `coverage.cells`: the map with its figures. */
export type CellsJson = CellCoverage & { hit: number; total: number; percent: number; missing: string[] };

export function cellsJson(c: CellCoverage): CellsJson {
  const s = cellStats(c);
  return { known: c.known, hits: c.hits, hit: s.hit, total: s.known, percent: s.percent, missing: s.missing };
}

/** The words a coverage gap starts with (--min-coverage): merge judges a shard's again on the sum. */
const CELL_GAP = 'fault-space coverage ';

/**
 * Why a SAFE is not enough under --min-coverage `min` (0–100), or undefined: the share of the known
 * cells hit is below it. Names the cells missing (MAX_NAMED, the rest counted).
 */
export function cellGap(c: CellCoverage | undefined, min: number | undefined): string | undefined {
  if (min === undefined || !c) return undefined;
  const s = cellStats(c);
  if (s.known === 0 || 100 * s.hit >= min * s.known) return undefined;
  const named = s.missing.slice(0, MAX_NAMED);
  return `${CELL_GAP}${s.hit} of ${s.known} cells (${s.percent} %) is below --min-coverage ${min} %; never hit: ${named.join(', ')}${s.missing.length > named.length ? `, … and ${s.missing.length - named.length} more` : ''}`;
}

/** Whether a gap is only --min-coverage's: a shard's own, which merge judges again on the shards' cells summed. */
export const isCellGap = (gap: string): boolean => gap.startsWith(CELL_GAP);
