// Value helpers shared by models: canonical text for equality and hashing, and token order.

/** JSON with object keys sorted, so equal values give equal text (undefined reads as null). */
export function canonical(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  // A finite number's JSON is its String (-0 included); the register models ask once per step.
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
}

/** A fencing token (an integer: number, bigint or integer string) as a comparable bigint or number, or undefined when the value carries none. */
export function tokenOf(value: unknown): bigint | number | undefined {
  if (value === null || typeof value !== 'object' || !('token' in value)) return undefined;
  const t = (value as { token: unknown }).token;
  if (typeof t === 'number' && Number.isInteger(t)) return t;
  if (typeof t === 'bigint') return t;
  if (typeof t === 'string' && /^-?\d+$/.test(t)) return BigInt(t);
  return undefined;
}

/** a > b for integer tokens that may be numbers or bigints. */
export function tokenGreater(a: bigint | number, b: bigint | number): boolean {
  return typeof a === typeof b ? a > b : BigInt(a) > BigInt(b);
}

/** Names the op for messages: "process 3's acquire at line 41". */
export function opName(op: { process: number; f: string; invokeLine: number }): string {
  return `process ${op.process}'s ${op.f} at line ${op.invokeLine}`;
}
