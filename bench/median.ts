// The median the benches report: the middle value, the lower one of an even count (a time that
// was measured, never an average of two).
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
