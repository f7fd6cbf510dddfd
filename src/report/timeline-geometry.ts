// Geometry shared by the server-side SVG (html.ts) and the page script
// (timeline-script.ts): the same numbers in both places, so a page drawn
// without JavaScript and one re-laid out by zooming look the same.
// The page script widens each SVG to its window (G.width is the width drawn without script).
export const G = {
  width: 1260,     // svg width, px, before the page script fits it to the window
  labelW: 92,      // lane label column
  plotW: 1168,     // plot area at G.width
  headH: 40,       // header rows: anomaly tags (y 14), tick labels (y 32)
  faultH: 18,      // one row per fault under the header
  laneH: 28,       // a lane without lock story (old-style op lane, node, key)
  clientH: 66,     // a client lane: ops, belief, lease, two rows of notes
  resourceH: 42,
  barY: 4, barH: 14,
  holdY: 21, holdH: 8,
  leaseY: 32, leaseH: 6,
  noteRows: [51, 62],
  minW: 3,         // narrowest bar, px
  charW: 6.3,      // estimated width of one label character at 11px
} as const;

/** Round tick positions covering [a0, a1], about n of them. */
export function niceTicks(a0: number, a1: number, n: number): { ticks: number[]; step: number } {
  const raw = (a1 - a0) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let t = Math.ceil(a0 / step) * step; t <= a1 + step * 1e-9; t += step) ticks.push(Number(t.toFixed(12)));
  return { ticks, step };
}


/** A tick's label: ms, or seconds once ticks are a second or more apart; event numbers without times. */
export function tickLabel(v: number, step: number, mode: string): string {
  if (mode !== 'time') return '#' + v.toFixed(0);
  return step >= 1000 ? (v / 1000).toFixed(Math.max(0, Math.min(6, -Math.floor(Math.log10(step / 1000))))) + ' s' : v.toFixed(Math.max(0, Math.min(6, -Math.floor(Math.log10(step))))) + ' ms';
}
