// runLockTest refuses bad options before any server starts (exitCode 2), including
// properties the CLI knows (liveness, all) spelled wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runLockTest } from '../../src/api.ts';

test('runLockTest: an unknown property or a bad liveness bound rejects with exitCode 2, naming the option', async () => {
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', property: 'safety' as never }),
    (e: Error & { exitCode?: number }) => e.exitCode === 2 && /property must be one of lock, resource, both, liveness, all, got "safety"/.test(e.message));
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', property: 'liveness', livenessMs: -5 }),
    (e: Error & { exitCode?: number }) => e.exitCode === 2 && /livenessMs must be a whole number from 1 to 3600000, got -5/.test(e.message));
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', minCoverage: 120 }),
    (e: Error & { exitCode?: number }) => e.exitCode === 2 && /runLockTest: minCoverage must be a percentage from 0 to 100 .*, got 120/.test(e.message));
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', coverageGuided: 'no' as never }),
    (e: Error & { exitCode?: number }) => e.exitCode === 2 && /coverageGuided must be a boolean/.test(e.message));
});

test('runLockTest: a lang lockpick does not speak rejects with exitCode 2, naming the ones it does', async () => {
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', lang: 'fr' }),
    (e: Error & { exitCode?: number }) => e.exitCode === 2 && /runLockTest: lang "fr" is not a language lockpick speaks; give 'en' or 'zh-CN'/.test(e.message));
});

test('runLockTest takes the CLI\'s environment and workload options, refusing what cannot run (exitCode 2)', async () => {
  const is2 = (re: RegExp) => (e: Error & { exitCode?: number }) => e.exitCode === 2 && re.test(e.message);
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', env: 'external' }), is2(/--env external needs --endpoints/));
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', env: 'external', endpoints: 'redis=127.0.0.1:1', faults: ['kill'] }), is2(/fault 'kill' needs 'kill'/));
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', faults: ['partition'], restartDelayMs: 1000 }), is2(/runLockTest: restartDelayMs is an option of the fault kinds kill .*, server-term/));
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', maxAttempts: 0 }), is2(/maxAttempts must be a whole number from 1 to \d+/));
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', keyPrefix: 'no spaces' }), is2(/--key-prefix 'no spaces'/));
  await assert.rejects(runLockTest({ lock: 'redis-set-px-lua', faults: ['all', 'kill'] }), is2(/--faults all stands alone/));
});
