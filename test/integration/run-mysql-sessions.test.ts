// `lockpick run` on a real MariaDB, random search (no fixed plan), 3 clients: a lock that
// lives in the holder's server session (SELECT ... FOR UPDATE in an open transaction,
// GET_LOCK) is freed when the server drops that session. An anchored partition cuts the
// holder's connection (the proxy closes it) while it believes it holds and works on: the
// server rolls back / releases, a waiter takes the lock, and both believe they hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anomalyTypes, lockpick, tempStore, type CliResult } from './run-helpers.ts';

const firstTypes = (r: CliResult) => [...anomalyTypes(r), ...((r.summary?.firstAnomalies ?? []) as { type: string }[]).map((a) => a.type)];

for (const lock of ['mysql-for-update', 'mysql-get-lock']) {
  test(`${lock} + the holder's session dropped while it is partitioned: double holder`, async () => {
    const r = await lockpick(['run', '--lock', lock, '--faults', 'partition', '--clients', '3', '--first-failure', '--time', '60', '--shrink-time', '3',
      '--store', tempStore(), '--json'], 120_000);
    assert.equal(r.code, 1, r.stderr);
    assert.ok(firstTypes(r).includes('double-holder'), `anomalies: ${firstTypes(r)}`);
    // A partition did it: the holder's connection closed under it.
    assert.ok(r.summary!.minimal!.plan.faults.some((f) => f.kind === 'partition'), JSON.stringify(r.summary!.minimal!.plan.faults));
    console.log(`${lock}: first violation after ${r.summary!.firstAfterMs} ms of search`);
  });
}
