// The failover fault against real redis-server + redis-sentinel processes:
// replication cut first, primary paused, a replica promoted without the key;
// after healing, the old primary answers as master until Sentinel demotes it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { startEnvironment, type Environment } from '../../src/env/index.ts';
import { createFault, processClients, type NemesisContext } from '../../nemesis/index.ts';
import { sentinelPrimary } from '../../nemesis/roles.ts';

let env: Environment;
let ctx: NemesisContext;
const events: { f: string; value: Record<string, unknown> }[] = [];
const conns: Redis[] = [];

before(async () => {
  env = await startEnvironment('redis-sentinel');
  ctx = { env, clients: processClients(new Map()), record: (f, value) => events.push({ f, value: value as Record<string, unknown> }) };
});

after(async () => {
  for (const c of conns) c.disconnect();
  await env?.down();
});

function direct(node: string): Redis {
  const r = new Redis({ host: '127.0.0.1', port: env.node(node).port, maxRetriesPerRequest: null, commandTimeout: 2000 });
  r.on('error', () => {});
  conns.push(r);
  return r;
}

test('failover: replication cut, primary paused, the promoted replica never got the key; split-brain window after heal', async () => {
  const f = createFault({ kind: 'failover', at_ms: 0, params: { how: 'pause', lead_ms: 500 } }, ctx);
  const starting = f.start();
  let healed = false;
  try {
    // Inside lead_ms: replication is already cut (its step is recorded once it is: under load that
    // can take longer than a fixed wait), the primary still takes writes.
    for (let i = 0; i < 1000 && !events.some((e) => e.f === 'failover-step' && /^replication of \S+ cut$/.test(String(e.value.step))); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(await direct('n1').set('lock', 'c1', 'PX', 60_000), 'OK');
    await starting;
    const start = events.find((e) => e.f === 'failover-start')!.value;
    assert.equal(start.old_primary, 'n1');
    const promoted = String(start.new_primary);
    assert.ok(['n2', 'n3'].includes(promoted), `promoted ${promoted}`);
    assert.equal(await sentinelPrimary(env), promoted, 'Sentinel reports the new primary');
    assert.equal(await direct(promoted).get('lock'), null, 'the promoted replica never got the lock key');
    console.log(`# failover: ${promoted} promoted ${start.promoted_after_ms} ms after the fault started (lead 500 ms)`);

    // Heal: the old primary comes back still believing it is master.
    const old = direct('n1');
    const healing = f.stop();
    healed = true;
    let sawMaster = false;
    for (let i = 0; i < 50 && !sawMaster; i++) {
      const role = (await old.call('ROLE').catch(() => undefined)) as unknown[] | undefined;
      sawMaster = Array.isArray(role) && role[0] === 'master';
      if (!sawMaster) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(sawMaster, 'old primary answers role master after resuming (split brain)');
    await healing;
    const stop = events.find((e) => e.f === 'failover-stop')!.value;
    assert.equal(stop.demoted, true, `old primary demoted: ${JSON.stringify(stop)}`);
    console.log(`# failover: split-brain window after resume ${stop.split_brain_ms} ms`);
    const role = (await old.call('ROLE')) as unknown[];
    assert.equal(role[0], 'slave');
  } finally {
    // A failed assertion must not leave the primary paused under the next test.
    if (!healed) { await starting.catch(() => {}); await f.stop().catch(() => {}); }
  }
});

test("partition 'primary-replicas' cuts replication of the current primary, and heals", async () => {
  const f = createFault({ kind: 'partition', at_ms: 0, target: 'primary-replicas' }, ctx);
  await f.start();
  const start = events.filter((e) => e.f === 'partition-start').at(-1)!.value;
  const replica = (start.shape as string).match(/replicas (\S+?)(,|$)/)![1]!;
  const linkState = async () => /master_link_status:(\w+)/.exec(await direct(replica).info('replication'))![1];
  const waitFor = async (want: string) => {
    for (let i = 0; (await linkState()) !== want; i++) {
      assert.ok(i < 200, `replica ${replica} link never became ${want}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await waitFor('down');
  } finally {
    await f.stop();
  }
  await waitFor('up');
});
