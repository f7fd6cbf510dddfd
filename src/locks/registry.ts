// Every lock implementation lockpick knows, by name, and loading a user's own.
import type { LockRecipe } from './lock.ts';
import { recipe as setnxGetset, checkRecipe as setnxGetsetCheck } from './setnx-getset.ts';
import { recipe as setPxDel } from './set-px-del.ts';
import { recipe as setPxCheckDel } from './set-px-check-del.ts';
import { recipe as setPxLua } from './set-px-lua.ts';
import { recipe as setPxLuaFenced } from './set-px-lua-fenced.ts';
import { recipe as redlock, fencedRecipe as redlockFenced } from './redlock.ts';
import { recipe as sentinel } from './sentinel.ts';
import { recipe as redisson } from './redisson-style.ts';
import { recipe as npmRedlock } from './npm-redlock.ts';
import { mutexRecipe as npmSemaphore, redlockMutexRecipe as npmSemaphoreRedlock, semaphoreRecipe as npmSemaphoreSemaphore } from './npm-redis-semaphore.ts';
import { recipe as zkEphemeralSequential } from './zk-ephemeral-sequential.ts';
import { recipe as zkEphemeral } from './zk-ephemeral.ts';
import { recipe as mysqlUniqueKey } from './mysql-unique-key.ts';
import { recipe as mysqlForUpdate } from './mysql-for-update.ts';
import { recipe as mysqlGetLock } from './mysql-get-lock.ts';
import { recipe as pgAdvisory, pgbouncerRecipe as pgAdvisoryPgbouncer } from './pg-advisory.ts';
import { recipe as pgAdvisoryXact } from './pg-advisory-xact.ts';
import { recipe as pgAdvisoryFenced } from './pg-advisory-fenced.ts';
import { recipe as etcdLeaseLock } from './etcd-lease-lock.ts';
import { recipe as etcdMutex, fencedRecipe as etcdMutexFenced } from './etcd-mutex.ts';
import { addDeleteRecipe as memcachedAddDelete, addCasRecipe as memcachedAddCas, addCasFencedRecipe as memcachedAddCasFenced } from './memcached.ts';
import { createDeleteRecipe as natsKvCreateDelete, createDeleteRevRecipe as natsKvCreateDeleteRev, fencedRecipe as natsKvFenced } from './nats-kv.ts';

import { recipe as redisZsetSemaphore } from './redis-zset-semaphore.ts';
import { recipe as redisLuaSemaphore } from './redis-lua-semaphore.ts';
import { recipe as redisLuaRwlock, checkThenSetRecipe as redisRwlockCheckThenSet } from './redis-rwlock.ts';

import { semaphoreRecipe as zkSemaphore, rwlockRecipe as zkRwlock } from './zk-shared.ts';
import { execRecipeFromName } from './exec-recipe.ts';

export { loadUserLock } from './user-lock.ts';

export const RECIPES: LockRecipe[] = [
  setnxGetset,
  setnxGetsetCheck,
  setPxDel,
  setPxCheckDel,
  setPxLua,
  setPxLuaFenced,
  redlock,
  redlockFenced,
  sentinel,
  redisson,
  npmRedlock,
  npmSemaphore,
  npmSemaphoreRedlock,
  zkEphemeralSequential,
  zkEphemeral,
  mysqlUniqueKey,
  mysqlForUpdate,
  mysqlGetLock,
  pgAdvisory,
  pgAdvisoryPgbouncer,
  pgAdvisoryXact,
  pgAdvisoryFenced,
  etcdLeaseLock,
  etcdMutex,
  etcdMutexFenced,
  memcachedAddDelete, memcachedAddCas, memcachedAddCasFenced,
  natsKvCreateDelete, natsKvCreateDeleteRev, natsKvFenced,
  redisZsetSemaphore, redisLuaSemaphore, redisLuaRwlock, redisRwlockCheckThenSet,
  zkSemaphore, zkRwlock, npmSemaphoreSemaphore,
];

export function getRecipe(name: string): LockRecipe {
  const r = RECIPES.find((x) => x.name === name) ?? execRecipeFromName(name);   // exec:CMD: a process client
  if (r) return r;
  throw new Error(`unknown lock "${name}"; known locks: ${RECIPES.map((x) => x.name).join(', ')} (or a path to your own module, e.g. --lock ./examples/my-lock.ts, or a process client in any language, --lock exec:'CMD' or ./recipe.json: docs/process-clients.md)`);
}
