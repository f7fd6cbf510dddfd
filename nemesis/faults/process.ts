// Server process faults: pause (SIGSTOP/SIGCONT) and kill (SIGKILL, then restart); the
// stop-then-restart every kind that stops servers shares (server-term.ts).
import type { NodeHandle } from '../../src/env/types.ts';
import fc from 'fast-check';
import { sleep, type FaultGenOptions, type FaultImpl, type KindDef } from '../fault.ts';
import type { FaultSpec, NemesisContext } from '../types.ts';
import type { StopHow } from '../../src/env/capabilities.ts';
import { at, beyondLease, beyondSession, lasting, paramsText, single, someServer, startAt, targetText } from '../words.ts';
import { FaultSpecError, MAX_FAULT_MS, param } from '../spec.ts';
import { NODE_TARGETS, resolveNodes } from '../targets.ts';
import { forDur, vsLease } from '../band.ts';
import { topologyDef } from '../../src/env/topologies.ts';
import { declared } from '../../src/env/topology.ts';

export const pause: KindDef = {
  schema: {
    kind: 'pause',
    summary: 'stop server processes with SIGSTOP (connects succeed, commands hang) until resumed',
    target: NODE_TARGETS,
    targetRequired: true,
    params: {},
  },
  needs: ['pause'],
  scope: 'server',
  create(spec, ctx) {
    const paused: NodeHandle[] = [];
    return {
      async start() {
        for (const n of await resolveNodes(spec, ctx)) { paused.push(n); await n.pause(); }
        return { nodes: paused.map((n) => n.id) };
      },
      async stop() {
        for (const n of paused.splice(0)) await n.resume();
      },
    };
  },
  // Past the lease; where servers elect a leader (a ZooKeeper ensemble) also past the session
  // timeout (and the followers' syncLimit × tickTime, 2.5 s), so a paused leader is replaced and sessions wait.
  generate: (o) => single(fc.record({
    kind: fc.constant('pause'), at_ms: startAt(o), target: someServer(o),
    duration_ms: declared(topologyDef(o.topology)?.leader) ? fc.oneof(beyondLease(o), beyondSession(o)) : beyondLease(o),
  })),
  band: (b) => `pause server ${b.who}${forDur(b)}${vsLease(b)}`,
  describe: (f) => `${at(f)}: pause (SIGSTOP) node ${targetText(f)}${lasting(f)}`,
};

/** Params that keep a stopped node down --restart-delay (the delayed-restart policy), for every kind that stops and restarts servers. */
export function restartDelayParams(o: Pick<FaultGenOptions, 'restartDelayMs'>): Record<string, unknown> {
  return o.restartDelayMs !== undefined ? { restart_delay_ms: o.restartDelayMs } : {};
}

/**
 * The params a generated (or aimed) kill carries: a server that forgets its holds without
 * persistence (Redis) restarts without it (a topology that always forgets takes no such
 * parameter); a delayed-restart policy keeps the node down.
 */
export function killParams(o: Pick<FaultGenOptions, 'topology' | 'restartDelayMs'>): Record<string, unknown> | undefined {
  const p: Record<string, unknown> = {
    ...(topologyDef(o.topology)?.restartForgets === 'without-persistence' ? { persistence: 'none' } : {}),
    ...restartDelayParams(o),
  };
  return Object.keys(p).length ? p : undefined;
}

/** The restart_delay_ms param of every kind that stops servers and restarts them when healed. */
export const RESTART_DELAY_PARAM = {
  restart_delay_ms: { type: 'number', min: 0, max: MAX_FAULT_MS, doc: "restart no sooner than this long after the stop, even when healed early: the 'delayed restart' mitigation, set it above the lock TTL" },
} as const;

/**
 * A fault that stops its target servers `how` (a signal) and restarts them when healed, no
 * sooner than params.restart_delay_ms after the stop; `restartWith`: how the restart goes
 * (kill's persistence). Its start records the nodes and, for a graceful stop that ran out of
 * time, the nodes SIGKILL ended (`forced`).
 */
export function stopThenRestart(spec: FaultSpec, ctx: NemesisContext, how: StopHow, restartWith?: { persistence?: 'none' | 'aof-always' }): FaultImpl {
  const stopped: NodeHandle[] = [];
  let stoppedAt = 0;
  return {
    async start() {
      stoppedAt = Date.now();
      const forced: string[] = [];
      for (const n of await resolveNodes(spec, ctx)) {
        stopped.push(n);
        if ((await n.kill(how))?.forced) forced.push(n.id);
      }
      return { nodes: stopped.map((n) => n.id), ...(forced.length ? { forced } : {}) };
    },
    async stop() {
      if (stopped.length === 0) return;
      // Timers may fire a millisecond early: loop until the delay has really passed.
      const due = stoppedAt + param(spec, 'restart_delay_ms', 0);
      while (Date.now() < due) await sleep(due - Date.now());
      const down_ms = Date.now() - stoppedAt;
      const nodes = stopped.splice(0);
      for (const n of nodes) await n.restart(restartWith);
      return { nodes: nodes.map((n) => n.id), down_ms };
    },
  };
}

/** "node n1" or "nodes n1, n2", and "it"/"them", for a stop-and-restart spec in words. */
export function stoppedText(f: FaultSpec): { nodes: string; them: string; delay: string } {
  const many = Array.isArray(f.target) && f.target.length > 1;
  return {
    nodes: `${many ? 'nodes' : 'node'} ${targetText(f)}`,
    them: many ? 'them' : 'it',
    delay: f.params?.restart_delay_ms !== undefined ? ` (not before ${String(f.params.restart_delay_ms)} ms)` : '',
  };
}

export const kill: KindDef = {
  schema: {
    kind: 'kill',
    summary: 'crash server processes with SIGKILL; restart them when healed (optionally not before a delay)',
    target: NODE_TARGETS,
    targetRequired: true,
    params: {
      persistence: { type: 'string', values: ['none', 'aof-always'], doc: "where the topology has the option (Redis): restart without persistence (forgets every key) or with AOF fsync always (default: as the node was started)" },
      ...RESTART_DELAY_PARAM,
    },
  },
  aliases: ['restart', 'crash'],
  needs: ['kill'],
  scope: 'server',
  breaks: 'restart',
  paramNeeds: { persistence: 'restart-persistence' },
  takes: { restartDelayMs: 'keeps a killed server down that long' },
  create(spec, ctx) {
    const persistence = spec.params?.persistence as 'none' | 'aof-always' | undefined;
    const topology = topologyDef(ctx.env.topology);
    // A hand-made or replayed spec: persistence is a parameter only where the topology has the option.
    if (persistence !== undefined && topology && !(topology.options ?? []).includes('persistence')) {
      throw new FaultSpecError(`fault 'kill': params.persistence: ${topology.name} has no persistence to choose (${topology.restartForgets === 'always' ? 'a restart always forgets' : 'it takes no persistence option'}); leave it out`);
    }
    return stopThenRestart(spec, ctx, { signal: 'SIGKILL' }, persistence ? { persistence } : undefined);
  },
  // Restarted without persistence after a short time: Redis forgets the lock key
  // (other servers restart as they were started: ZooKeeper and MariaDB keep their data).
  // With a delayed-restart policy (--restart-delay), no sooner than that.
  generate: (o) => single(fc.record({
    kind: fc.constant('kill'), at_ms: startAt(o), duration_ms: fc.integer({ min: 0, max: 300 }), target: someServer(o),
    ...(killParams(o) ? { params: fc.constant(killParams(o)!) } : {}),
  })),
  band: (b) => `kill server ${b.who}${forDur(b) === '' ? '' : `, down${forDur(b)}`}`,
  describe: (f) => `${at(f)}: kill -9 ${stoppedText(f).nodes}, restart ${stoppedText(f).them} ${f.duration_ms !== undefined ? `after ${f.duration_ms} ms` : 'at the end'}${stoppedText(f).delay}` +
    `${f.params?.persistence === 'none' ? ' without persistence' : paramsText(f, ['restart_delay_ms'])}`,
};
