// The fault-space coverage grid (src/runner/fault-cells.ts), as HTML: one row per fault kind,
// one column per place it can land (points, then phases), each square split in two, waiting and
// alone, coloured by what the search did there: hit (darker the more faults), never hit, or not a
// cell this search could draw. A page of its own (coverage.html in every search's run dir, SAFE
// or not: a search without a counterexample has no timeline) and a section other pages may embed.
import { escapeHtml } from './html.ts';
import { cellName, parseCell, type Cell } from '../workload/cell.ts';
import { cellStats, describeCells, type CellCoverage } from '../runner/fault-cells.ts';
import { getOwn } from '../own-key.ts';

const PHASE_ORDER = ['acquire', 'holding', 'release', 'idle'];

/** The grid's rows and columns: kinds in the order known, places (named points, I/O points, then phases). */
function axes(c: CellCoverage): { kinds: string[]; places: string[] } {
  const cells = [...c.known, ...Object.keys(c.hits)].map(parseCell).filter((x): x is Cell => x !== undefined);
  const kinds = [...new Set(cells.map((x) => x.kind))];
  const seen = [...new Set(cells.map((x) => x.place))];
  const rank = (p: string) => (PHASE_ORDER.includes(p) ? 2 : /^(send|reply):/.test(p) ? 1 : 0);
  const places = seen.map((p, i) => ({ p, i })).sort((a, b) => rank(a.p) - rank(b.p) || (rank(a.p) === 2 ? PHASE_ORDER.indexOf(a.p) - PHASE_ORDER.indexOf(b.p) : a.i - b.i)).map((x) => x.p);
  return { kinds, places };
}

/** One half of a square: its class and tooltip. */
function half(c: CellCoverage, known: Set<string>, cell: Cell): string {
  const name = cellName(cell);
  const n = getOwn(c.hits, name) ?? 0;
  const isKnown = known.has(name);
  const cls = n > 0 ? (isKnown ? (n >= 5 ? 'hit3' : n >= 2 ? 'hit2' : 'hit1') : 'extra') : isKnown ? 'miss' : 'none';
  const tip = `${name}: ${n > 0 ? `${n} fault(s)` : isKnown ? 'never hit' : 'not a cell this search draws'}${n > 0 && !isKnown ? ' (hit, beyond the cells known)' : ''}`;
  return `<span class="${cls}" title="${escapeHtml(tip)}">${n > 0 ? n : ''}</span>`;
}

const CSS = `.cells{border-collapse:collapse;font:12px system-ui,sans-serif}.cells th,.cells td{border:1px solid #ddd;padding:2px 4px;text-align:center}
.cells th.kind{text-align:right}.cells th.place{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;white-space:nowrap}
.cells td span{display:inline-block;width:22px;height:18px;line-height:18px;font-size:10px;vertical-align:middle}
.cells .hit1,.cellkey .hit1{background:#c8e6c9}.cells .hit2,.cellkey .hit2{background:#81c784}.cells .hit3,.cellkey .hit3{background:#388e3c;color:#fff}
.cells .miss,.cellkey .miss{background:#ffcdd2}.cells .extra,.cellkey .extra{background:#bbdefb}.cells .none,.cellkey .none{background:#f5f5f5}
.cellkey span{display:inline-block;padding:1px 6px;margin-right:6px}`;

/** The grid as a section: the coverage line, the table, a key. */
export function cellsSection(c: CellCoverage): string {
  const { kinds, places } = axes(c);
  const known = new Set(c.known);
  const head = `<tr><th></th>${places.map((p) => `<th class="place">${escapeHtml(p)}</th>`).join('')}</tr>`;
  const rows = kinds.map((k) => `<tr><th class="kind">${escapeHtml(k)}</th>${places.map((p) => `<td>${half(c, known, { kind: k, place: p, waiting: true })}${half(c, known, { kind: k, place: p, waiting: false })}</td>`).join('')}</tr>`).join('');
  const s = cellStats(c);
  return `<section class="coverage"><h2>Fault-space coverage: ${s.hit} of ${s.known} cells (${s.percent} %)</h2>
<p>${escapeHtml(describeCells(c))}</p>
<p class="cellkey">Each square: <b>left</b> another client was waiting on the lock, <b>right</b> alone. <span class="hit1">hit</span><span class="hit3">hit 5+ times</span><span class="miss">never hit</span><span class="extra">hit, not a cell known</span><span class="none">not drawn here</span></p>
<table class="cells">${head}${rows}</table></section>`;
}

/** coverage.html: the grid on a page of its own. */
export function renderCellsHtml(c: CellCoverage, title: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(`lockpick coverage — ${title}`)}</title><style>body{font:14px system-ui,sans-serif;margin:1.5em}${CSS}</style></head>
<body><h1>${escapeHtml(title)}</h1>
${cellsSection(c)}
<p>A cell is a fault kind × where it landed (the point it was anchored at, or the phase its clients were in) × whether another client was waiting on the lock meanwhile (docs/search.md, "Fault-space coverage").</p>
</body></html>
`;
}

export const cellsCss = (): string => CSS;
