// Register models of docs/history-format.md. The state is the canonical JSON text of the value,
// so equality and hashing are string operations (initially null).
import type { Op } from '../../src/history/types.ts';
import type { Inconsistent } from '../types.ts';
import { canonical } from '../values.ts';
import type { DescribedModel } from './lockpick-model.ts';

/** The value an op carries: on the invoke line, else on the completion. */
const argOf = (op: Op): unknown => (op.invokeValue !== undefined ? op.invokeValue : op.value);

/**
 * A read or cas that cannot happen in state `held`. The search tries, and refuses, most of its
 * steps (about 0.8M in a 30k-op history): the reason's words are made only when someone reads
 * them (an explanation), not at every refusal.
 */
class Refused implements Inconsistent {
  readonly inconsistent = true as const;
  constructor(private readonly op: Op, private readonly got: string, private readonly held: string) {}
  get reason(): string {
    const { op, got, held } = this;
    return op.f === 'cas'
      ? `process ${op.process}'s cas ${got}→${canonical((argOf(op) as unknown[])[1])} succeeded but the register held ${held}`
      : `process ${op.process} read ${got} but the register held ${held}`;
  }
}

function readOrWrite(s: string, op: Op): string | Inconsistent {
  if (op.f === 'write') return canonical(argOf(op));
  if (op.outcome !== 'ok') return s; // an unanswered read observes nothing
  const got = canonical(op.value);
  return got === s ? s : new Refused(op, got, s);
}

/**
 * Register ops act the same whoever calls them: f and the value the step reads say it all (a
 * write's or cas's argument; a read's answer, not a value its invoke may carry).
 */
const opKey = (op: Op): string => `${op.f} ${canonical(op.f === 'read' ? op.value : argOf(op))}`;

function describeOp(op: Op): string {
  if (op.f === 'read') return op.outcome === 'ok' ? `read ${canonical(op.value)}` : 'read (no answer)';
  if (op.f === 'write') return `write ${canonical(argOf(op))}`;
  const [a, b] = argOf(op) as [unknown, unknown];
  return `cas ${canonical(a)}→${canonical(b)}`;
}

export const register: DescribedModel<string> = {
  name: 'register',
  description: 'read/write register, initially null: a read returns the last value written',
  operations: ['read', 'write'],
  init: () => 'null',
  step: readOrWrite,
  partition: (op) => op.key,
  hash: (s) => s,
  describe: (s) => `value ${s}`,
  describeOp,
  opKey,
};

export const casRegister: DescribedModel<string> = {
  name: 'cas-register',
  description: 'register with compare-and-set, initially null: cas [a,b] succeeds only when the value is a, then sets b',
  operations: ['read', 'write', 'cas'],
  validate(op) {
    if (op.f !== 'cas') return undefined;
    const v = argOf(op);
    return Array.isArray(v) && v.length === 2 ? undefined : `a cas needs "value": [expected, new], got ${JSON.stringify(v)}`;
  },
  init: () => 'null',
  step(s: string, op: Op): string | Inconsistent {
    if (op.f !== 'cas') return readOrWrite(s, op);
    const ab = argOf(op) as [unknown, unknown];
    const expected = canonical(ab[0]);
    return expected === s ? canonical(ab[1]) : new Refused(op, expected, s);
  },
  partition: (op) => op.key,
  hash: (s) => s,
  describe: (s) => `value ${s}`,
  describeOp,
  opKey,
};
