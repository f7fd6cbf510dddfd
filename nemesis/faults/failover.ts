// Sentinel failover with the lock key never replicated: cut the primary's
// replication links first, (optionally wait lead_ms so clients write to the
// primary alone), then take the primary away so Sentinel promotes a replica
// that never got the key. Healing brings the old primary back; it keeps
// answering as master until Sentinel demotes it (the split-brain window),
// which stop() measures and records.
import type { NodeHandle } from '../../src/env/types.ts';
import fc from 'fast-check';
import { pollUntil, sleep, type KindDef } from '../fault.ts';
import { at, beyondLease, single, startAt } from '../words.ts';
import { cutLinks } from '../links.ts';
import { currentPrimary, redisRole, replicasOf, sentinelPrimary } from '../roles.ts';
import { MAX_FAULT_MS, param } from '../spec.ts';
import { finite, forDur, type FaultStep } from '../band.ts';

const DEMOTION_TIMEOUT_MS = 30_000;
/** The step that takes the primary away, in words. */
const AWAY: Record<string, string> = { kill: 'killed', pause: 'paused', partition: 'cut off from Sentinels and replicas' };

export const failover: KindDef = {
  schema: {
    kind: 'failover',
    summary: 'redis-sentinel: cut replication, take the primary away, wait until Sentinel promotes a replica',
    target: '',
    targetRequired: false,
    topologies: ['redis-sentinel'],
    params: {
      how: { type: 'string', values: ['pause', 'partition', 'kill'], doc: "how the primary goes away: 'pause' (SIGSTOP, default), 'partition' (cut from Sentinels and replicas; clients still reach it: split brain), 'kill'" },
      cut_replication: { type: 'boolean', doc: 'cut the primary↔replica links first so nothing written from now on is copied (default true)' },
      lead_ms: { type: 'number', min: 0, max: MAX_FAULT_MS, doc: 'time between cutting replication and taking the primary away (default 0)' },
      wait_ms: { type: 'number', min: 0, max: MAX_FAULT_MS, doc: 'how long to wait for Sentinel to promote a replica (default 15000)' },
      await_demotion: { type: 'boolean', doc: 'when healed, wait until the old primary reports role slave and record the split-brain window (default true)' },
    },
  },
  // It pauses, kills or cuts off the primary and cuts replication: only where lockpick runs the servers.
  needs: ['failover', 'node-link', 'pause', 'kill'],
  scope: 'server',
  breaks: 'failover',
  create(spec, ctx, id) {
    const env = ctx.env;
    const how = param(spec, 'how', 'pause');
    const undo: (() => Promise<void>)[] = [];
    let old: NodeHandle | undefined;
    return {
      async start(step) {
        const t0 = Date.now();
        const p = await currentPrimary(env);
        old = p;
        const replicas = replicasOf(env, p).map((n) => n.id);
        const touches = (ids: string[]) => env.links.filter((l) => (l.from === p.id && ids.includes(l.to)) || (l.to === p.id && ids.includes(l.from)));
        // Each step recorded as it is taken (the start record waits for the promotion, seconds later).
        if (param(spec, 'cut_replication', true)) {
          undo.push(await cutLinks(env, touches(replicas), 'disable', `${id}-repl`));
          step(`replication of ${p.id} cut`, { node: p.id });
        }
        await sleep(param(spec, 'lead_ms', 0));
        if (how === 'pause') {
          await p.pause();
          undo.push(() => p.resume());
        } else if (how === 'kill') {
          await p.kill();
          undo.push(() => p.restart());
        } else {
          const sentinels = env.nodes.filter((n) => n.role === 'sentinel').map((n) => n.id);
          undo.push(await cutLinks(env, touches([...sentinels, ...replicas]), 'disable', `${id}-away`));
        }
        step(`${p.id} ${AWAY[how] ?? how}`, { node: p.id });
        const promoted = await pollUntil(async () => {
          const s = await sentinelPrimary(env);
          return s !== undefined && s !== p.id ? s : undefined;
        }, param(spec, 'wait_ms', 15_000));
        if (!promoted) {
          throw new Error(`nemesis failover: Sentinel did not promote a replica within ${param(spec, 'wait_ms', 15_000)} ms after ${how} of primary ${p.id}; raise params.wait_ms or check the Sentinel logs`);
        }
        step(`${promoted} promoted`, { node: promoted });
        return { old_primary: p.id, new_primary: promoted, how, promoted_after_ms: Date.now() - t0 };
      },
      async stop(step) {
        // The primary comes back first, then replication (reverse order of start).
        for (const u of undo.splice(0).reverse()) await u();
        if (old) step(`${old.id} back${param(spec, 'await_demotion', true) ? ', until Sentinel demotes it' : ''}`, { node: old.id });
        if (!old || !param(spec, 'await_demotion', true)) return { old_primary: old?.id };
        const back = Date.now();
        const demoted = await pollUntil(async () => ((await redisRole(old!)) === 'slave' ? true : undefined), DEMOTION_TIMEOUT_MS, 100);
        return { old_primary: old.id, demoted: demoted === true, split_brain_ms: Date.now() - back };
      },
    };
  },
  generate: (o) => single(fc.record({
    // Early in the run: promotion takes seconds, and the clients must still be there to meet it.
    kind: fc.constant('failover'), at_ms: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 4) }), duration_ms: beyondLease(o),
    params: fc.record({ lead_ms: fc.integer({ min: 0, max: o.ttlMs }) }),
  })),
  band: (b) => (typeof b.value.new_primary === 'string'
    ? `failover: ${String(b.value.old_primary ?? '?')} cut off, ${b.value.new_primary} promoted${finite(b.value.promoted_after_ms) === undefined ? '' : ` after ${finite(b.value.promoted_after_ms)} ms`}${forDur(b)}`
    : `failover of ${b.who}${forDur(b)}`),
  // A history from before failover-step records: its steps placed from what the start record says.
  bandSteps: (v, a, at) => {
    const p = (v.params ?? {}) as Record<string, unknown>;
    const old = typeof v.old_primary === 'string' ? v.old_primary : 'the primary';
    const how = typeof (v.how ?? p.how) === 'string' ? String(v.how ?? p.how) : 'pause';
    const lead = typeof p.lead_ms === 'number' && p.lead_ms > 0 ? p.lead_ms : 0;
    const steps: FaultStep[] = [];
    if (p.cut_replication !== false) steps.push({ a, words: `replication of ${old} cut` });
    steps.push({ a: Math.min(at, a + lead), words: `${old} ${AWAY[how] ?? how}` });
    if (typeof v.new_primary === 'string') steps.push({ a: at, words: `${v.new_primary} promoted` });
    return steps;
  },
  describe: (f) => `${at(f)}: Sentinel failover (${String(f.params?.how ?? 'pause')} the primary${f.params?.lead_ms ? ` ${String(f.params.lead_ms)} ms after cutting replication` : ''}), heal${f.duration_ms !== undefined ? ` ${f.duration_ms} ms later` : ' at the end'}`,
};
