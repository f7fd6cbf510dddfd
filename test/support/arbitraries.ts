// fast-check arbitraries of simulated histories (events; turn them into a ParsedHistory with
// toParsed or into JSONL with toJsonl). Choices come from a generated array, so failures shrink.
import fc from 'fast-check';
import type { HistoryEvent } from '../../src/history/types.ts';
import { fromArray } from './choices.ts';
import { simulateLock, type LockSimOptions } from './lock-sim.ts';
import { simulateRegister } from './register-sim.ts';

const choicesArb = (maxSteps: number) => fc.array(fc.nat({ max: 1 << 20 }), { minLength: 1, maxLength: maxSteps, size: 'max' });

/** Histories of a correct lock (or, with buggyPerMille > 0, of a lock that sometimes double-grants). */
export function lockHistoryArb(o: { maxSteps?: number; tokens?: boolean; buggyPerMille?: number; maxKeys?: number } = {}): fc.Arbitrary<HistoryEvent[]> {
  return fc.record({
    clients: fc.integer({ min: 1, max: 5 }),
    keys: fc.integer({ min: 1, max: o.maxKeys ?? 3 }),
    infoPerMille: fc.constantFrom(0, 30, 100, 200),
    failPerMille: fc.constantFrom(0, 100, 300),
    nemesis: fc.boolean(),
    // A lease of 1 or 3 ms at 0.1 ms per event runs out within 10 or 30 events.
    leaseMs: fc.constantFrom(undefined, 1, 3),
    choices: choicesArb(o.maxSteps ?? 150),
  }).map(({ choices, leaseMs, ...rest }) => {
    const opts: LockSimOptions = { ...rest, steps: choices.length, tokens: o.tokens, buggyPerMille: o.buggyPerMille, ...(leaseMs === undefined ? {} : { leaseMs, tickNs: 100_000 }) };
    const events: HistoryEvent[] = [];
    simulateLock(opts, fromArray(choices), (e) => events.push(e));
    return events;
  });
}

export function registerHistoryArb(o: { maxSteps?: number; cas: boolean }): fc.Arbitrary<HistoryEvent[]> {
  return fc.record({
    clients: fc.integer({ min: 1, max: 4 }),
    keys: fc.integer({ min: 1, max: 2 }),
    infoPerMille: fc.constantFrom(0, 50, 150),
    choices: choicesArb(o.maxSteps ?? 120),
  }).map(({ choices, ...rest }) => {
    const events: HistoryEvent[] = [];
    simulateRegister({ ...rest, cas: o.cas, steps: choices.length }, fromArray(choices), (e) => events.push(e));
    return events;
  });
}
