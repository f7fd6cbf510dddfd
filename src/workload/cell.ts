// A fault cell's name and parts (src/runner/fault-cells.ts says what a cell is; ./cell-space.ts
// which cells a search could draw): plain names, shared by both without their imports.

/** Where a fault not anchored at a point landed: the phase its clients were in when it began. */
export const PHASES = ['acquire', 'holding', 'release', 'idle'] as const;
export type Phase = typeof PHASES[number];

export interface Cell {
  kind: string;
  /** A point ('send:release:2', 'in-critical-section') or a phase ('holding'). */
  place: string;
  waiting: boolean;
}

export const cellName = (c: Cell): string => `${c.kind}@${c.place}/${c.waiting ? 'waiting' : 'alone'}`;

/** `client-pause@send:release:2/waiting` → its parts (the kind ends at the first '@', the place at the last '/'). */
export function parseCell(name: string): Cell | undefined {
  const at = name.indexOf('@'), slash = name.lastIndexOf('/');
  if (at <= 0 || slash <= at + 1) return undefined;
  const w = name.slice(slash + 1);
  if (w !== 'waiting' && w !== 'alone') return undefined;
  return { kind: name.slice(0, at), place: name.slice(at + 1, slash), waiting: w === 'waiting' };
}
