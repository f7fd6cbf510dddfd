// A lock of your own, checked by lockpick:
//
//   node bin/lockpick.mjs run --lock ./examples/my-lock.ts --faults pause --time 30
//
// The module exports a LockRecipe (as default, or as `recipe`). lockpick starts
// the servers the recipe's `topology` asks for, then calls `create(ctx)` once
// per client worker with the endpoints that client must use (each one routed
// through the fault proxy) and records every acquire/release as a history.
//
// What your methods return is what the client BELIEVES, and becomes the history:
//   acquire → a Held object: ok · null: fail (certainly not acquired) · throw: info (unknown)
//   release → 'released': ok · 'lost' (the server said the lock was no longer yours): ok {lost}
//             · throw DefiniteFailure: fail (certainly not released) · any other throw: info
// So: never swallow an error whose outcome you do not know: throw it.
// Any other answer (undefined from a forgotten `return`, true, 'ok', ...) breaks
// the contract: lockpick stops with exit 2 and names the method. DefiniteFailure
// is known by its brand, so a module without lockpick's class may throw
//   Object.assign(new Error('not sent'), { lockpickDefiniteFailure: true })
//
// This example is the single-instance lock of the Redis "distlock" page:
// SET key <random> NX PX ttl, unlock with a Lua compare-and-delete.
// (Outside this repository: import type { Lock, LockContext, LockRecipe, Held } from 'lockpick'.)
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Lock, LockContext, LockRecipe, Held } from '../src/locks/lock.ts';

const UNLOCK = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

async function create(ctx: LockContext): Promise<Lock> {
  const ep = ctx.endpoints[0];
  if (!ep) throw new Error('my-lock: needs one Redis endpoint');
  const redis = new Redis({
    host: ep.host,
    port: ep.port,
    // Past this a command's outcome is unknown; ioredis rejects it and we throw.
    commandTimeout: ctx.commandTimeoutMs,
    // Do not queue or resend commands behind our back: a SET NX resent after a
    // reconnect would make "did I get the lock?" unanswerable.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    lazyConnect: true,
  });
  redis.on('error', () => {}); // errors reach us through the commands
  await redis.connect();

  return {
    name: 'my-lock',

    async acquire(key, { ttlMs, waitMs }): Promise<Held | null> {
      const value = randomBytes(16).toString('hex'); // unique per acquisition
      const start = ctx.clock.monoMs();
      for (;;) {
        // A timeout here throws: the SET may have happened, lockpick records info.
        if ((await redis.set(key, value, 'PX', ttlMs, 'NX')) === 'OK') {
          return { key, value }; // everything release() needs travels in Held
        }
        if (ctx.clock.monoMs() - start >= waitMs) return null; // certainly not ours
        await new Promise((r) => setTimeout(r, 20));
      }
    },

    async release(h) {
      const deleted = await redis.eval(UNLOCK, 1, h.key, String(h.value));
      return Number(deleted) === 1 ? 'released' : 'lost';
    },

    async close() {
      redis.disconnect(false);
    },
  };
}

const recipe: LockRecipe = {
  name: 'my-lock',
  summary: 'SET NX PX + Lua compare-and-delete (user example)',
  source: 'examples/my-lock.ts; https://redis.io/docs/latest/develop/use/patterns/distributed-locks/',
  topology: { kind: 'redis', masters: 1 }, // or { kind: 'redis', masters: 5 }, { kind: 'redis-sentinel' }, ...
  model: 'mutex',                          // 'fenced-mutex' when acquire returns { token } for the resource to check
  fencing: false,
  create,
};

export default recipe;
