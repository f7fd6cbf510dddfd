// The protected resource: a counter per lock key on the fault-free `resource`
// Redis node. Each critical section reads it and writes read+1. Both steps are
// Lua scripts that append what happened to a log list on the node, so the log is
// in the resource's own order. With fencing, a step carrying a token lower than
// the highest one seen is rejected (the read registers its token too, so a stale
// holder that read before the new holder cannot write after it).
// ioredis loads when the first client is made (ARCHITECTURE: client libraries load lazily).
import type { Redis } from 'ioredis';
import type { Endpoint } from '../env/types.ts';
import type { ResourceEntry } from '../../checkers/resource.ts';

// KEYS: counter, max-token, log. ARGV: op, token ('' = unfenced), value, client, process, read.
// max-token holds "<token> <client>": a token equal to the highest seen is
// accepted only from the client that brought it first (a second grant with
// the same token, e.g. after the lock node restarted its counter, is stale).
const STEP = `
local fenced = ARGV[2] ~= ''
local t = tonumber(ARGV[2])
local seen = redis.call('GET', KEYS[2])
local max, owner = -1, ''
if seen then
  local a, b = string.match(seen, '^(%S+) (.*)$')
  max, owner = tonumber(a), b
end
local prev = tonumber(redis.call('GET', KEYS[1]) or '0')
local accepted = 1
if fenced then
  if t < max or (t == max and owner ~= ARGV[4]) then accepted = 0
  elseif t > max then redis.call('SET', KEYS[2], ARGV[2] .. ' ' .. ARGV[4]) end
end
if accepted == 1 and ARGV[1] == 'write' then redis.call('SET', KEYS[1], ARGV[3]) end
local e = {op = ARGV[1], client = ARGV[4], process = tonumber(ARGV[5]), prev = prev, accepted = accepted == 1}
if fenced then e.token = t; e.max = max end
if ARGV[1] == 'write' then e.value = tonumber(ARGV[3]); e.read = tonumber(ARGV[6]) end
redis.call('RPUSH', KEYS[3], cjson.encode(e))
return {accepted, prev}
`;

// A holder of a semaphore or read-write lock entering or leaving the resource (KEYS: log;
// ARGV: op, client, process, mode, permits, limit): only logged, in the resource's order; the
// check (checkers/resource.ts) counts who was inside at once.
const OCCUPY = `
local e = {op = ARGV[1], client = ARGV[2], process = tonumber(ARGV[3]), prev = 0, accepted = true}
if ARGV[4] ~= '' then e.mode = ARGV[4] end
if ARGV[5] ~= '' then e.permits = tonumber(ARGV[5]) end
if ARGV[6] ~= '' then e.limit = tonumber(ARGV[6]) end
redis.call('RPUSH', KEYS[1], cjson.encode(e))
return {1, 0}
`;

// The lock key first: its prefix (--key-prefix) is then the prefix of everything the run writes.
function keys(key: string): [string, string, string] {
  return [`${key}:res:counter`, `${key}:res:max-token`, `${key}:res:log`];
}

export interface StepResult { accepted: boolean; prev: number }

export class ResourceClient {
  private readonly client: Promise<Redis>;
  private closed = false;

  constructor(ep: Endpoint, timeoutMs: number) {
    this.client = import('ioredis').then(({ Redis }) => {
      const r = new Redis({ host: ep.host, port: ep.port, lazyConnect: true, maxRetriesPerRequest: 1, commandTimeout: timeoutMs, enableOfflineQueue: true });
      r.defineCommand('lockpickStep', { numberOfKeys: 3, lua: STEP });
      r.defineCommand('lockpickOccupy', { numberOfKeys: 1, lua: OCCUPY });
      if (this.closed) r.disconnect(false);
      return r;
    });
  }

  private async step(op: 'read' | 'write', key: string, token: number | undefined, value: number, client: string, process: number, read: number): Promise<StepResult> {
    const r = await this.client;
    const fn = (r as unknown as Record<string, (...a: unknown[]) => Promise<[number, number]>>).lockpickStep;
    const [accepted, prev] = await fn.call(r, ...keys(key), op, token === undefined ? '' : String(token), String(value), client, String(process), String(read));
    return { accepted: accepted === 1, prev };
  }

  read(key: string, token: number | undefined, client: string, process: number): Promise<StepResult> {
    return this.step('read', key, token, 0, client, process, 0);
  }

  write(key: string, token: number | undefined, value: number, read: number, client: string, process: number): Promise<StepResult> {
    return this.step('write', key, token, value, client, process, read);
  }

  /** A semaphore's or read-write lock's holder enters or leaves the resource, with its mode, permits and the limit. */
  async occupy(op: 'enter' | 'leave', key: string, client: string, process: number, f: { mode?: string; permits?: number; limit?: number }): Promise<StepResult> {
    const r = await this.client;
    const fn = (r as unknown as Record<string, (...a: unknown[]) => Promise<[number, number]>>).lockpickOccupy;
    await fn.call(r, keys(key)[2], op, client, String(process), f.mode ?? '', f.permits === undefined ? '' : String(f.permits), f.limit === undefined ? '' : String(f.limit));
    return { accepted: true, prev: 0 };
  }

  /** The log and final value of each key, in the resource's order. */
  async collect(keyList: string[]): Promise<{ entries: ResourceEntry[]; finals: Record<string, number> }> {
    const entries: ResourceEntry[] = [];
    const finals: Record<string, number> = {};
    const r = await this.client;
    for (const key of keyList) {
      const [counter, , log] = keys(key);
      const raw = await r.lrange(log, 0, -1);
      raw.forEach((line, i) => entries.push({ key, seq: i, ...(JSON.parse(line) as Omit<ResourceEntry, 'key' | 'seq'>) }));
      finals[key] = Number((await r.get(counter)) ?? 0);
    }
    return { entries, finals };
  }

  close(): void {
    this.closed = true;
    void this.client.then((r) => r.disconnect(false), () => {});
  }
}
