/**
 * redlock — the Redlock algorithm as the distlock summary gives it
 * (Redis's distlock page; the Redis and ZooKeeper post sketches the same), over N independent masters
 * (ctx.endpoints, N = 5 by default):
 *   1. 获取当前时间（单位是毫秒）                       get the current time in ms
 *   2. 轮流用相同的key和随机值在N个节点上请求锁 … 超时时间 … 小的多  SET on each node in turn,
 *      with a per-node timeout much smaller than the TTL (5–50 ms for 10 s)
 *   3. 只有当客户端在大多数master节点上成功获取了锁 … 而且总共消耗的时间不超过锁释放时间
 *      held only with a majority (N/2+1) and elapsed < TTL
 *   4. validity = TTL − elapsed (− drift; drift = TTL·0.01 + 2 ms as in the reference code)
 *   5. on failure, unlock on every node, even those it thinks it did not lock
 *   retry after a random delay; release = compare-and-delete on all nodes.
 * Option clock=wall (default, "get the current time", as the post says) or
 * clock=monotonic (antirez's answer to clock jumps) measures the elapsed time.
 * Point 'before-validity-check' lies between the last SET and the elapsed-time
 * check: a pause there is caught by the check (with the monotonic clock); a
 * pause after it (in the critical section) is not.
 *
 * redlock-fenced adds the fencing token Kleppmann says Redlock lacks, the
 * only way it can get one without a consensus service: each node keeps a
 * counter `<key>:fence`; the SET also reads it, the token is the largest
 * read + 1, written back (never lowered) to a majority before the grant.
 * Any two majorities share a node, so a later grant reads a value at least
 * as large, as long as no node forgets (a restart without persistence does:
 * the runs show the tokens then repeat).
 */
import type { Redis } from 'ioredis';
import type { Lock, LockContext, LockRecipe, Held, AcquireOptions } from './lock.ts';
import { DefiniteFailure } from './lock.ts';
import { openRedis, whenReady, closeAll } from './redis-client.ts';
import { choiceOption, numberOption } from './options.ts';
import { isDefinite } from './outcome.ts';
import { COMPARE_AND_DELETE } from './lua.ts';
import { randomValue } from './set-px-lua.ts';
import { sleep } from './retry.ts';
import { referenceDriftMs as driftMs } from './reported-validity.ts';

const NAME = 'redlock';

/** SET NX PX and, when it is granted, the node's fencing counter; -1 when not granted. */
const SET_AND_READ_FENCE = `
if redis.call("set", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
    return tonumber(redis.call("get", KEYS[2]) or "0")
end
return -1`;

/** Raises the node's fencing counter to ARGV[1] (never lowers it), if the lock is still ours. */
const RAISE_FENCE = `
if redis.call("get", KEYS[1]) ~= ARGV[1] then return 0 end
local c = tonumber(redis.call("get", KEYS[2]) or "0")
if c < tonumber(ARGV[2]) then redis.call("set", KEYS[2], ARGV[2]) end
return 1`;

type Vote = 'yes' | 'no' | 'not-sent' | 'unknown';

/** One command on one node, bounded by `ms`; never throws. */
async function vote(p: Promise<unknown>, ms: number, yes: (v: unknown) => boolean): Promise<Vote> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Vote>((res) => { timer = setTimeout(() => res('unknown'), ms); });
  const answer = p.then((v) => (yes(v) ? 'yes' : 'no') as Vote, (err) => (isDefinite(err) ? 'not-sent' : 'unknown') as Vote);
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function create(ctx: LockContext, fenced = false): Promise<Lock> {
  const NAME = fenced ? 'redlock-fenced' : 'redlock';
  if (ctx.endpoints.length === 0) throw new Error(`lock ${NAME}: client ${ctx.clientId} has no endpoints; Redlock needs N independent masters (topology redis, masters 5)`);
  const clockKind = choiceOption(ctx, NAME, 'clock', ['wall', 'monotonic'] as const, 'wall');
  const now = clockKind === 'wall' ? () => ctx.clock.wallMs() : () => ctx.clock.monoMs();
  const retryDelayMs = numberOption(ctx, NAME, 'retryDelayMs', 200);
  const parallel = numberOption(ctx, NAME, 'parallel', 0) > 0;
  const nodes: Redis[] = await Promise.all(ctx.endpoints.map((ep) => openRedis(ctx, ep)));
  await Promise.all(nodes.map((r) => whenReady(r, Math.max(1000, ctx.commandTimeoutMs))));
  const quorum = Math.floor(nodes.length / 2) + 1;

  const unlockAll = (key: string, value: string, ms: number) =>
    Promise.all(nodes.map((r) => vote(r.eval(COMPARE_AND_DELETE, 1, key, value), ms, (n) => Number(n) === 1)));

  async function attempt(key: string, ttlMs: number): Promise<Held | null> {
    const nodeTimeoutMs = numberOption(ctx, NAME, 'nodeTimeoutMs', Math.max(10, Math.min(ctx.commandTimeoutMs, Math.floor(ttlMs / 20))));
    const value = randomValue();
    const t0 = now();
    const fences: number[] = [];
    const setOn = fenced
      ? (r: Redis) => vote(r.eval(SET_AND_READ_FENCE, 2, key, `${key}:fence`, value, ttlMs), nodeTimeoutMs, (v) => {
        if (Number(v) < 0) return false;
        fences.push(Number(v));
        return true;
      })
      : (r: Redis) => vote(r.set(key, value, 'PX', ttlMs, 'NX'), nodeTimeoutMs, (v) => v === 'OK');
    let votes: Vote[];
    if (parallel) votes = await Promise.all(nodes.map(setOn));
    else {
      votes = [];
      for (const r of nodes) votes.push(await setOn(r));
    }
    let token: number | undefined;
    if (fenced && votes.filter((v) => v === 'yes').length >= quorum) {
      // Write the token back to a majority before using it, so the next grant's read sees it.
      token = Math.max(...fences) + 1;
      const raised = await Promise.all(nodes.map((r, i) => votes[i] !== 'yes' ? Promise.resolve<Vote>('not-sent')
        : vote(r.eval(RAISE_FENCE, 2, key, `${key}:fence`, value, token!), nodeTimeoutMs, (n) => Number(n) === 1)));
      if (raised.filter((v) => v === 'yes').length < quorum) token = undefined;
    }
    await ctx.point?.('before-validity-check');
    const elapsed = now() - t0;
    const drift = driftMs(ttlMs);
    const validity = ttlMs - elapsed - drift;
    const locked = votes.filter((v) => v === 'yes').length;
    if (locked >= quorum && validity > 0 && (!fenced || token !== undefined)) {
      return { key, value, validUntilMs: ctx.clock.monoMs() + validity, locked, elapsedMs: elapsed, ...(fenced ? { token } : {}) };
    }
    // Step 5: unlock everywhere, including where the SET timed out.
    await unlockAll(key, value, ctx.commandTimeoutMs);
    return null;
  }

  return {
    name: NAME,
    async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
      const start = ctx.clock.monoMs();
      for (;;) {
        const held = await attempt(key, o.ttlMs);
        if (held) return held;
        const left = o.waitMs - (ctx.clock.monoMs() - start);
        if (left <= 0) return null;
        await sleep(Math.min(left, Math.floor(Math.random() * retryDelayMs)));
      }
    },
    async release(h: Held) {
      const votes = await unlockAll(h.key, String(h.value), ctx.commandTimeoutMs);
      const count = (v: Vote) => votes.filter((x) => x === v).length;
      if (count('yes') >= quorum) return 'released';
      if (count('not-sent') === nodes.length) throw new DefiniteFailure(`${NAME} release ${h.key}: no node could be reached`);
      // A node that did not answer may have deleted our key: the outcome is unknown.
      if (count('unknown') + count('not-sent') > 0) {
        throw new Error(`${NAME} release ${h.key}: deleted on ${count('yes')} of ${nodes.length} nodes, ${count('unknown')} did not answer, ${count('not-sent')} unreachable`);
      }
      return 'lost';   // every node answered and fewer than a majority still held our value
    },
    async close() { await closeAll(nodes); },
  };
}

/** The reference code's drift allowance: TTL·0.01 + 2 ms. */

export const recipe: LockRecipe = {
  name: NAME,
  clockDriftMs: driftMs,
  summary: 'Redlock over N independent masters: majority, validity = TTL − elapsed − drift, unlock everywhere on failure',
  source: 'the distlock summary (Redis\'s distlock page), the Redis and ZooKeeper post (RedLock section)',
  topology: { kind: 'redis', masters: 5 },
  model: 'mutex',
  fencing: false,
  points: ['before-validity-check'],
  optionsHelp: {
    clock: 'wall (default, as the distlock summary) | monotonic: the clock that measures the acquisition time',
    nodeTimeoutMs: 'per-node SET timeout (default TTL/20, at least 10 ms, at most the command timeout)',
    retryDelayMs: 'upper bound of the random delay between attempts (default 200 ms)',
    parallel: '1 = send the SETs to all nodes at once (the page\'s "multiplexing"); default 0 = in turn, as the distlock summary',
  },
  optionValues: { clock: ['wall', 'monotonic'], nodeTimeoutMs: 'number', retryDelayMs: 'number', parallel: 'number' },
  create,
};

export const fencedRecipe: LockRecipe = {
  ...recipe,
  name: 'redlock-fenced',
  summary: 'redlock plus a fencing token: max of the nodes\' counters + 1, written back to a majority before the grant',
  source: 'the distlock summary (Redis\'s distlock page) + Kleppmann 2016 (fencing tokens, which Redlock does not give)',
  model: 'fenced-mutex',
  fencing: true,
  create: (ctx) => create(ctx, true),
};
