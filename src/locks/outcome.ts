// Classifying a failed Redis command: did it certainly not happen?
// See redis-client.ts for why the client setup makes this decidable.
import { DefiniteFailure, isDefiniteFailure } from './lock.ts';

const NOT_SENT = [
  "Stream isn't writeable",           // no offline queue: never written to the socket
  'None of the sentinels are available', // never reached a primary
];

/** True when the command certainly did not take effect. */
export function isDefinite(err: unknown): boolean {
  if (isDefiniteFailure(err)) return true;
  if (!(err instanceof Error)) return false;
  // Redis answered with an error (READONLY, LOADING, NOSCRIPT, ...): not executed.
  if (err.name === 'ReplyError') return true;
  return NOT_SENT.some((m) => err.message.includes(m));
}

/** For release/renew: a definite error becomes DefiniteFailure (→ fail), anything else stays unknown (→ info). */
export function rethrowClassified(err: unknown, what: string): never {
  if (isDefiniteFailure(err)) throw err;
  if (isDefinite(err)) throw new DefiniteFailure(`${what}: ${(err as Error).message}`);
  throw err;
}
