// Recipe options (`--lock-opt k=v` on the command line arrive as strings).
import type { LockContext } from './lock.ts';

export function numberOption(ctx: LockContext, recipe: string, name: string, fallback: number): number {
  const v = ctx.options?.[name];
  if (v === undefined || v === '') return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n) || n < 0) {
    throw new Error(`lock ${recipe}: option ${name}=${String(v)} is not a non-negative number; pass e.g. --lock-opt ${name}=${fallback}`);
  }
  return n;
}

export function choiceOption<T extends string>(ctx: LockContext, recipe: string, name: string, choices: readonly T[], fallback: T): T {
  const v = ctx.options?.[name];
  if (v === undefined || v === '') return fallback;
  if (typeof v === 'string' && (choices as readonly string[]).includes(v)) return v as T;
  throw new Error(`lock ${recipe}: option ${name}=${String(v)} is not one of ${choices.join(', ')}; pass e.g. --lock-opt ${name}=${fallback}`);
}
