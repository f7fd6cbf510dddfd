// Apache Curator's InterProcessMutex (examples/process-clients/java/CuratorLock.java,
// docs/process-clients.md) through `lockpick run` on a real ZooKeeper ensemble, compiled once by
// the example's own build.sh: SAFE fault-free; its holder cut off past its session works on
// (UNSAFE); with a ConnectionStateListener that gives the hold up on SUSPENDED or LOST it stays
// SAFE under the same search. In the serial lane: the listener's verdict hangs on a session
// expiring after the client saw SUSPENDED (2/3 of the session), a margin a starved JVM could lose.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFaultFreeSafe, buildJavaClients, runJava, said } from './java-helpers.ts';

const CURATOR = 'curator-lock.json';
const CURATOR_LISTENER = 'curator-lock-listener.json';

before(buildJavaClients);

test("Curator's InterProcessMutex: SAFE fault-free (or inconclusive with its reason, never a violation)", async () => {
  await assertFaultFreeSafe(CURATOR);
});

test("Curator's InterProcessMutex as documented: a holder cut off past its session works on, a double holder", async () => {
  const r = await runJava(CURATOR, ['--faults', 'partition', '--first-failure'], '40');
  assert.equal(r.code, 1, said(r));
  assert.match(r.stdout, /double-holder on key/);
  assert.match(r.stdout, /inherent to an unfenced session lock: the holder's session ended under it \(partition/);
});

test('Curator with a ConnectionStateListener (SUSPENDED or LOST: the hold is lost): SAFE under the same search', async () => {
  // A number of runs, not a time: contention counts only waiters that got a definite answer, which
  // partitions often leave unanswered; 5 runs in 20 s under load once met none (exit 3).
  const r = await runJava(CURATOR_LISTENER, ['--faults', 'partition', '--runs', '14'], '120');
  // Exit 0 is the coverage promise: partitions took effect and an acquire met another's hold.
  assert.equal(r.code, 0, said(r));
  assert.match(r.stdout, /faults applied: partition [1-9]/);
});
