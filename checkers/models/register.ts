// Register models of docs/history-format.md. The state is the canonical JSON text of the value,
// so equality and hashing are string operations (initially null).
import type { Op } from '../../src/history/types.ts';
import type { Inconsistent } from '../types.ts';
import { canonical } from '../values.ts';
import { inconsistent } from './inconsistent.ts';
import type { DescribedModel } from './lockpick-model.ts';

/** The value an op carries: on the invoke line, else on the completion. */
const argOf = (op: Op): unknown => (op.invokeValue !== undefined ? op.invokeValue : op.value);

function readOrWrite(s: string, op: Op): string | Inconsistent {
  if (op.f === 'write') return canonical(argOf(op));
  if (op.outcome !== 'ok') return s; // an unanswered read observes nothing
  const got = canonical(op.value);
  return got === s ? s : inconsistent(`process ${op.process} read ${got} but the register held ${s}`);
}

/** Register ops act the same whoever calls them: f and argument say it all. */
const opKey = (op: Op): string => `${op.f} ${canonical(argOf(op))}`;

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
    const [a, b] = argOf(op) as [unknown, unknown];
    const expected = canonical(a);
    return expected === s ? canonical(b) : inconsistent(`process ${op.process}'s cas ${expected}→${canonical(b)} succeeded but the register held ${s}`);
  },
  partition: (op) => op.key,
  hash: (s) => s,
  describe: (s) => `value ${s}`,
  describeOp,
  opKey,
};
