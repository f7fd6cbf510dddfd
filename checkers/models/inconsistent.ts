import type { Inconsistent } from '../types.ts';

export function inconsistent(reason: string): Inconsistent {
  return { inconsistent: true, reason };
}

export function isInconsistent(r: unknown): r is Inconsistent {
  return typeof r === 'object' && r !== null && (r as Inconsistent).inconsistent === true;
}
