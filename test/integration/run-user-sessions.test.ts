// test-lane: beside
// session-kill on a user's own session locks (test/fixtures/locks/user-*.ts: plain `pg` and
// `mysql2`, no application_name, no tag of any kind): the fault finds the holder's server
// session by the proxy's upstream port (src/env/client-sessions.ts), ends it while c1 is in
// its critical section, c2 takes the lock meanwhile: the fault applied, a double holder.
// One stored plan per lock, one run each (a few seconds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { anomalyTypes, lockpick, tempStore } from './run-helpers.ts';

function replaySessionKill(lock: string) {
  const dir = tempStore();
  const attempt = (delayMs: number, holdMs: number) => ({ key: 'k0', delayMs, waitMs: 2000, holdMs, renew: false });
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    description: "c1's session ended in its critical section; c2 asks meanwhile", lock, lock_spec: { path: lock }, property: 'lock',
    plan: {
      ttlMs: 1000,
      clients: [{ attempts: [attempt(0, 800)] }, { attempts: [attempt(200, 200)] }],
      faults: [{ kind: 'session-kill', at_ms: 0, target: 'c1', anchor: { client: 'c1', point: 'in-critical-section' } }],
    },
  }));
  return lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json'], 90_000);
}

const nemesisEvents = (dir: string, f: string) => readFileSync(path.join(dir, 'history.jsonl'), 'utf8').trim().split('\n')
  .map((l) => JSON.parse(l) as { process: unknown; f: string; value?: Record<string, unknown> }).filter((e) => e.process === 'nemesis' && e.f === f);

for (const [lock, said] of [['test/fixtures/locks/user-pg-advisory.ts', /pg_terminate_backend\(\d+\)/], ['test/fixtures/locks/user-mysql-get-lock.ts', /KILL CONNECTION \d+ on/]] as const) {
  test(`${path.basename(lock)}: session-kill finds the untagged session and ends it under its holder (exit 1, double holder)`, async () => {
    const r = await replaySessionKill(lock);
    assert.equal(r.code, 1, r.stderr.slice(-3000));
    assert.ok(anomalyTypes(r).includes('double-holder'), `anomalies: ${anomalyTypes(r)}`);
    const started = nemesisEvents(r.summary!.dir, 'session-kill-start');
    assert.equal(started.length, 1, JSON.stringify(started));
    // One session: c1's own (c2's is not ended), named by its id.
    assert.equal(started[0]!.value?.sessions, 1, JSON.stringify(started[0]));
    assert.match(String(started[0]!.value?.said), said);
    assert.equal(nemesisEvents(r.summary!.dir, 'session-kill-start-failed').length, 0);
  });
}
