// Where simulators get their random choices: from a fast-check-generated array (so failures
// shrink) or from a seeded PRNG (bench, millions of ops).
export interface Choices {
  /** An integer in [0, n). */
  int(n: number): number;
  /** True with probability ‰ per mille. */
  chance(perMille: number): boolean;
}

/** Replays a fixed array of integers (wrapping around), e.g. one fast-check generated. */
export function fromArray(xs: readonly number[]): Choices {
  let i = 0;
  const next = () => (xs.length ? xs[i++ % xs.length]! : 0);
  return { int: (n) => next() % n, chance: (pm) => next() % 1000 < pm };
}

/** xorshift32 from a seed: fast, reproducible, good enough for workloads. */
export function seeded(seed: number): Choices {
  let s = seed | 0 || 0x2545f491;
  const next = () => { s ^= s << 13; s ^= s >>> 17; s ^= s << 5; return s >>> 0; };
  return { int: (n) => next() % n, chance: (pm) => next() % 1000 < pm };
}
