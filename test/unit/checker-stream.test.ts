// The streaming check (checkers/stream.ts) must give exactly what reading the whole file and
// checkHistory give: verdict, every anomaly with its words, lines and ops, keys_detail, and the
// same error for input the model cannot read. Compared on the hand-written histories and on
// random lock histories (correct, buggy, and arbitrary ops with leases, renews, lost/lapse).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { checkHistory } from '../../checkers/index.ts';
import { STREAM_TUNING, checkJsonlStreaming, streams } from '../../checkers/stream.ts';
import type { CheckResult } from '../../checkers/types.ts';
import { readHistory } from '../../src/history/index.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { lockHistoryArb } from '../support/arbitraries.ts';
import { seeded } from '../support/choices.ts';
import { simulateLock } from '../support/lock-sim.ts';
import { toJsonl } from '../support/history.ts';
import { injectDoubleHolder, injectStaleRelease } from '../support/inject.ts';
import { permitOpsArb, randomLockOpsArb } from '../support/random-lock-ops.ts';
import { tmpHistory } from './history-tmp.ts';
import { loadBackends } from '../../checkers/backends.ts';

// checkHistory (synchronous) of a history whose run-start names a backend needs the registry loaded, as its async callers do.
await loadBackends();

const ROOT = path.resolve(import.meta.dirname, '../..');
const LOCK_MODELS = ['mutex', 'fenced-mutex', 'reentrant-mutex', 'semaphore', 'rwlock'];
const BACKENDS = [undefined, 'redis', 'zookeeper'] as const;

type Outcome = Omit<CheckResult, 'elapsed_ms' | 'check_ms' | 'parse_ms'> | { error: string };

async function outcome(f: () => Promise<CheckResult>): Promise<Outcome> {
  try {
    const { elapsed_ms: _e, check_ms: _c, parse_ms: _p, ...rest } = await f();
    return rest;
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

async function assertSame(file: string, model: string, backend?: 'redis' | 'zookeeper', chunkBytes?: number): Promise<void> {
  const o = { model, backend };
  const whole = await outcome(async () => checkHistory(await readHistory(file), o));
  const streamed = await outcome(() => checkJsonlStreaming(file, o, chunkBytes));
  assert.deepEqual(streamed, whole, `${file} under ${model}`);
}

test('streams only the sweep models, and only without limits', () => {
  assert.deepEqual(['mutex', 'fenced-mutex', 'reentrant-mutex', 'semaphore', 'rwlock', 'knossos-mutex', 'cas-register'].map((model) => streams({ model })), [true, true, true, true, true, false, false]);
  assert.equal(streams({ model: 'mutex', timeLimitMs: 1000 }), false);
  assert.equal(streams({ model: 'mutex', maxMemoryBytes: 1e9 }), false);
});

test('the hand-written histories, valid, invalid and malformed, give the same results streamed', async () => {
  for (const dir of ['histories', 'histories/malformed']) {
    for (const name of readdirSync(path.join(ROOT, dir)).filter((n) => n.endsWith('.jsonl'))) {
      for (const model of LOCK_MODELS) for (const backend of BACKENDS) await assertSame(path.join(ROOT, dir, name), model, backend);
    }
  }
  await assertSame(path.join(ROOT, 'histories/double-holder.jsonl'), 'mutex', undefined, 7);
});

const sameOnEvents = async (events: HistoryEvent[]) => {
  const file = tmpHistory(toJsonl(events));
  for (const model of LOCK_MODELS) for (const backend of BACKENDS) await assertSame(file, model, backend);
};

test('random lock histories (correct, with a violation injected, buggy servers) give the same results streamed', async () => {
  await fc.assert(fc.asyncProperty(lockHistoryArb({ tokens: true }), fc.nat(), fc.nat({ max: 2 }), async (events, pick, how) => {
    await sameOnEvents(how === 0 ? events : how === 1 ? injectDoubleHolder(events, pick).events : injectStaleRelease(events, pick).events);
  }), { numRuns: 60 });
  await fc.assert(fc.asyncProperty(lockHistoryArb({ tokens: true, buggyPerMille: 200 }), sameOnEvents), { numRuns: 60 });
});

test('long histories with many crashed clients (their ended holds are dropped as the sweep passes) give the same results streamed', async () => {
  STREAM_TUNING.endedMin = 0; // drop them at every step, not only when the table has grown
  for (const seed of [1, 2, 3]) {
    for (const buggyPerMille of [0, 20]) {
      const events: HistoryEvent[] = [];
      simulateLock({ clients: 6, keys: 2, steps: 12_000, infoPerMille: 80, failPerMille: 100, buggyPerMille, tokens: true, ...(seed === 3 ? { leaseMs: 3, tickNs: 100_000 } : {}) }, seeded(seed), (e) => events.push(e));
      await sameOnEvents(events);
    }
  }
});

test('arbitrary lock ops (stale unlocks of every shape, leases, renews, lost and lapse releases) give the same results streamed', async () => {
  await fc.assert(fc.asyncProperty(randomLockOpsArb(60), sameOnEvents), { numRuns: 300 });
});

test('a lease dated from its renewal decides a late unlock streamed as it does whole (found by the property above)', async () => {
  // The acquire names no lease; its renew does (1 ms); the unlock goes out 1.5 ms later, then another process holds.
  const events: HistoryEvent[] = [
    { type: 'invoke', f: 'acquire', process: 0, key: 'k1' }, { type: 'ok', f: 'acquire', process: 0, key: 'k1', value: { token: 0 } },
    { type: 'invoke', f: 'renew', process: 0, key: 'k1' }, { type: 'ok', f: 'renew', process: 0, key: 'k1', time: 0, lease_ms: 1 },
    { type: 'invoke', f: 'acquire', process: 0, key: 'k0' }, { type: 'ok', f: 'acquire', process: 0, key: 'k0', value: { token: 0 } },
    { type: 'invoke', f: 'release', process: 0, key: 'k1', time: 1_500_000 },
    { type: 'invoke', f: 'acquire', process: 1, key: 'k1' }, { type: 'ok', f: 'acquire', process: 1, key: 'k1', value: { token: 0 } },
    { type: 'ok', f: 'release', process: 0, key: 'k1' },
  ] as HistoryEvent[];
  await sameOnEvents(events);
});

test('semaphore and rwlock histories (permits, modes, leases, refusals, unknown outcomes) give the same results streamed', async () => {
  for (const model of ['semaphore', 'rwlock'] as const) {
    await fc.assert(fc.asyncProperty(permitOpsArb(model, 60), async (events) => {
      const file = tmpHistory(toJsonl(events));
      for (const backend of BACKENDS) await assertSame(file, model, backend);
    }), { numRuns: 200 });
  }
});
