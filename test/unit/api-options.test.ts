// runLockTest refuses bad options before any server starts (exitCode 2), including
// properties the CLI knows (liveness, all) spelled wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runLockTest } from '../../src/api.ts';

test('runLockTest: an unknown property or a bad liveness bound rejects with exitCode 2, naming the option', async () => {
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', property: 'safety' as never }),
    (e: Error & { exitCode?: number }) => e.exitCode === 2 && /property must be one of lock, resource, both, liveness, all, got "safety"/.test(e.message));
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', property: 'liveness', livenessMs: -5 }),
    (e: Error & { exitCode?: number }) => e.exitCode === 2 && /livenessMs must be a whole number ≥ 1, got -5/.test(e.message));
});
