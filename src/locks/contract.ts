// The Lock contract (lock.ts), checked where a lock's answers enter the runner.
// A lock that answers outside it (an acquire that forgot to `return`, a create()
// that returned null, a release that says 'ok') would otherwise be recorded as
// if it meant something: every acquire `fail` and a vacuous SAFE, or `42` taken
// for a hold and blamed on the lock. Pure functions: each returns the message
// for a violation, or undefined when the value keeps the contract.

/** Which method broke the contract and how, in words for the user. */
export interface ContractViolation { method: 'create' | 'acquire' | 'release' | 'renew'; message: string }

const PREFIX = 'lock contract: ';

/** A short, safe rendering of any value (never throws, at most ~80 characters). */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string': return clip(JSON.stringify(v));
    case 'number': case 'boolean': return String(v);
    case 'bigint': return `${v}n`;
    case 'symbol': return clip(v.toString());
    case 'function': return `a function${v.name ? ` (${clip(v.name)})` : ''}`;
  }
  if (Array.isArray(v)) return `an array of ${v.length}`;
  let json: string | undefined;
  try {
    json = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
  } catch { /* cyclic or a throwing toJSON: fall back to the key names */ }
  if (json !== undefined) return clip(json);
  let keys: string[] = [];
  try { keys = Object.keys(v as object); } catch { /* a hostile proxy */ }
  return clip(`an object with keys ${keys.join(', ') || '(none)'}`);
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** create(ctx) must give a Lock: acquire, release, close functions (renew a function if present). */
export function checkCreated(lock: unknown): ContractViolation | undefined {
  const must = 'it must return (or resolve to) a Lock: { name, acquire(key, o), release(held), close(), renew?(held, ttlMs) }';
  if (!isObject(lock)) {
    const hint = lock === undefined ? ' Did you forget to return?' : '';
    return { method: 'create', message: `${PREFIX}create(ctx) returned ${describeValue(lock)}; ${must}.${hint}` };
  }
  const missing: string[] = [];
  for (const m of ['acquire', 'release', 'close'] as const) {
    if (typeof lock[m] !== 'function') missing.push(`${m} is ${describeValue(lock[m])}`);
  }
  if (lock.renew !== undefined && typeof lock.renew !== 'function') missing.push(`renew is ${describeValue(lock.renew)} (leave it out, or make it a function)`);
  if (missing.length === 0) return undefined;
  return { method: 'create', message: `${PREFIX}create(ctx) returned a Lock whose ${missing.join(', ')}; ${must}.` };
}

/**
 * acquire must give a Held ({ key: string, token? }) or null. A token is recorded
 * in the history and handed to the resource as a fence: a finite number or a
 * string; for a fencing recipe (fencing: true) every Held needs an integer token
 * (a safe integer, or a string of digits for tokens beyond 2^53).
 */
export function checkAcquired(key: string, v: unknown, fencing: boolean): ContractViolation | undefined {
  if (v === null) return undefined;
  const call = `acquire('${key}')`;
  const must = 'it must return a Held object ({ key, ... }) or null (certainly not acquired)';
  const fail = (what: string, hint = '') => ({ method: 'acquire' as const, message: `${PREFIX}${call} ${what}; ${must}.${hint}` });
  if (v === undefined) return fail('returned undefined', ' Did you forget to return?');
  if (!isObject(v)) {
    const hint = v === false ? ' Return null when the lock was not acquired.'
      : typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string' ? ' A truthy value is not a hold: return { key } (and what release needs).' : '';
    return fail(`returned ${describeValue(v)}`, hint);
  }
  if (typeof v.key !== 'string') return fail(`returned ${describeValue(v)}, whose key is ${describeValue(v.key)}`, ' Held.key is the lock name, a string.');
  const t = v.token;
  if (t === undefined) {
    if (fencing) return fail(`returned ${describeValue(v)} without a token`, ' The recipe says fencing: true, so every Held needs an integer token.');
    return undefined;
  }
  if (fencing) {
    const integer = (typeof t === 'number' && Number.isSafeInteger(t)) || (typeof t === 'string' && /^-?\d+$/.test(t));
    if (!integer) return fail(`returned a token ${describeValue(t)}`, ' The recipe says fencing: true: the token must be an integer (a number, or a string of digits when beyond 2^53).');
  } else if (!(typeof t === 'number' && Number.isFinite(t)) && typeof t !== 'string') {
    return fail(`returned a token ${describeValue(t)}`, ' Held.token, when present, is a finite number or a string.');
  }
  return undefined;
}

/** release must answer 'released' or 'lost' (the server said the lock was no longer ours). */
export function checkReleased(key: string, v: unknown): ContractViolation | undefined {
  if (v === 'released' || v === 'lost') return undefined;
  const hint = v === undefined ? ' Did you forget to return?' : '';
  return { method: 'release', message: `${PREFIX}release(held of '${key}') returned ${describeValue(v)}; it must return 'released' or 'lost' (the lock was no longer yours), or throw.${hint}` };
}

/** renew must answer 'renewed' or 'lost'. */
export function checkRenewed(key: string, v: unknown): ContractViolation | undefined {
  if (v === 'renewed' || v === 'lost') return undefined;
  const hint = v === undefined ? ' Did you forget to return?' : '';
  return { method: 'renew', message: `${PREFIX}renew(held of '${key}') returned ${describeValue(v)}; it must return 'renewed' or 'lost' (the lock was no longer yours), or throw.${hint}` };
}
