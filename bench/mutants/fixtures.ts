// The mutants of `npm run bench:mutants`: small, realistic bugs put into the
// built-in recipes of src/locks/, each one search/replace in one file, and the
// faults a user would pick per kind of lock. The faults are chosen per family,
// never per mutant, and only faults the correct recipe withstands (a fault
// that breaks the unmutated recipe too, such as a server clock jump under any
// Redis lease, would "kill" every mutant and say nothing): the bench runs each
// unmutated recipe with the same faults and calls any UNSAFE there a false alarm.
// test/unit/bench-mutants.test.ts checks that every search text occurs exactly
// once in its file, so a refactored recipe fails there, not silently here.
// Nothing here may be read by lockpick's search: an aim written for a mutant is tuning to the test.
import type { Family, Mutant } from './types.ts';

export const FAMILIES: Record<string, Family> = {
  // Single-node Redis leases (SET NX PX). A pause inside the critical section, a
  // server clock jump or a restart without persistence breaks the correct recipe
  // too (README, catalogue rows), so the user pauses clients at the lock's own
  // commands (I/O points) and cuts links.
  redis: {
    faults: ['partition', 'client-pause'],
    args: ['--pause-at', 'send,before-release'],
    why: 'client pauses before the lock\'s commands and at the start of its unlock, and cut links; pauses in the critical section or between a reply and the acquire\'s return (a late grant), clock jumps and restarts break every lease lock that reports no validity, the correct one too',
  },
  // A lease a watchdog keeps alive while held (Redisson's RLock): holds span several leases.
  // A cut link or a paused process stops the renewals while the holder still believes it
  // holds (Redisson does not tell the holder): the correct recipe breaks under partition and
  // under any pause inside a hold (a re-entry's commands included), so the user pauses clients
  // only where they no longer hold: at the start of the unlock.
  watchdog: {
    faults: ['client-pause'],
    args: ['--pause-at', 'before-release'],
    why: 'client pauses at the start of its unlock (a late unlock); a pause or a cut link while it holds stops the watchdog without telling the holder, which breaks the correct recipe too',
  },
  // Redlock over 5 masters: links cut between clients and masters, client pauses anywhere
  // (the lock reports its validity, so a careful client survives a pause in its critical
  // section). Restarts without persistence and clock jumps break the correct Redlock too.
  redlock: {
    faults: ['partition', 'client-pause'],
    // The lock's history only: a pause between the careful client's last look and its write
    // (point before-write) breaks every unfenced lock through the resource, the correct one too.
    args: ['--property', 'lock'],
    why: 'cut links and client pauses, the lock\'s history judged; a restart without persistence, a clock jump, or a pause just before an unfenced write breaks the correct Redlock too (Kleppmann)',
  },
  // ZooKeeper ensemble: cut links (session loss) and paused servers.
  zookeeper: {
    faults: ['partition', 'pause'],
    args: ['--clients', '5'],
    why: 'cut links (session loss) and paused ensemble members; 5 clients so that waiters queue',
  },
  // MySQL/MariaDB session and row locks: clients that die holding, a stalled server.
  // A cut link ends the holder's session, and with it the lock, while the holder
  // works on: the correct FOR UPDATE and GET_LOCK recipes break under partition
  // (their headers say so; the anchored cut before the resource write finds it).
  mysql: {
    faults: ['client-kill', 'pause'],
    args: [],
    why: 'clients killed while they hold and a paused server; a cut link frees a session lock under its working holder, the correct one too',
  },
  // PostgreSQL advisory locks held by a session (pg-advisory-session) or an open transaction
  // (pg-advisory-xact, through PgBouncer): no lease, so a client paused anywhere still holds, and
  // a holder that dies takes its lock with it. A server that ends the holder's session
  // (session-kill) or a cut link frees the lock under a working holder: the correct recipes break
  // there too (README catalogue), so the user kills and pauses clients. The fenced recipe's
  // tokens are judged in the lock's history (each grant's token above every earlier one): with
  // --property resource alone a bad token only makes the resource refuse a holder, never accept
  // a stale write.
  postgres: {
    faults: ['client-kill', 'client-pause'],
    args: [],
    why: 'clients killed while they hold and clients paused anywhere (no lease to outlive); a session the server ends, or a cut link, frees the lock under its working holder, the correct one too',
  },
  // etcd leases (etcd-mutex, etcd-lease-lock): a pause or a cut link while the client holds
  // stops its keep-alives, the lease lapses and the key goes while it works on (Jepsen, etcd
  // 3.4.3): that breaks the correct recipes too, so the user pauses clients where they do not
  // hold: before the lock's commands (its gRPC requests: I/O points) and at the start of the
  // unlock (a late unlock), and kills etcd members. Leases are whole seconds: a TTL of one. The
  // fenced mutex's tokens are judged in the lock's history, as on PostgreSQL.
  etcd: {
    faults: ['client-pause', 'kill'],
    args: ['--pause-at', 'send,before-release', '--ttl', '1000'],
    why: 'client pauses before the lock\'s commands (its gRPC requests) and at the start of its unlock (a late unlock), and killed members; a pause or cut link while holding lets the lease lapse under the holder, the correct one too (Jepsen)',
  },
};

/** Where a mutant is made: its family, its file, and the recipe module and export that load it. */
type Site = Pick<Mutant, 'family' | 'file' | 'module' | 'exportName'>;

/** The mutants made at one site, each given the site's fields. */
const at = (site: Site, bugs: Omit<Mutant, keyof Site>[]): Mutant[] => bugs.map(({ name, ...bug }) => ({ name, ...site, ...bug }));

export const MUTANTS: Mutant[] = [
  // ── single-node Redis: SET NX PX + Lua compare-and-delete (set-px-lua.ts and its helpers) ──
  ...at({ family: 'redis', file: 'set-px-lua.ts' }, [
    {
      name: 'lua-unlock-plain-del',
      search: 'const n = await r.eval(COMPARE_AND_DELETE, 1, h.key, String(h.value));',
      replace: 'const n = await r.del(h.key);',
      why: 'owner check dropped from unlock: DEL looks equivalent to the script and saves a round of Lua',
    },
    {
      name: 'lua-unlock-lost-as-released',
      search: "return Number(n) === 1 ? 'released' : 'lost';",
      replace: "return 'released';",
      why: 'the script\'s 0 (the key was no longer ours) is ignored: unlock "cannot fail", so its reply is not read',
      survives: 'the release is invoked (and its invoke recorded) before the pause at before-release or at its send, so an ok can be placed before the acquire that overlapped the pause: a real execution where the unlock reached Redis first. It is wrong only if another client\'s acquire completed before the release was invoked, and this lock reports no validity, so the releaser still believed it held then: a double holder the unmutated recipe shows as well. Nothing the client does depends on the answer',
      equivalent: true,
    },
  ]),
  ...at({ family: 'redis', file: 'single-node.ts', module: 'set-px-lua.ts' }, [
    {
      name: 'set-without-nx',
      search: "(await r.set(key, value, 'PX', ttlMs, 'NX')) !== 'OK'",
      replace: "(await r.set(key, value, 'PX', ttlMs)) !== 'OK'",
      why: 'NX forgotten when the SET was rewritten from SETNX + PEXPIRE: SET always answers OK',
    },
    {
      name: 'set-nx-without-px',
      search: "(await r.set(key, value, 'PX', ttlMs, 'NX')) !== 'OK'",
      replace: "(await r.set(key, value, 'NX')) !== 'OK'",
      why: 'the expiry left out ("we always unlock"): no lease, so a crashed holder blocks forever',
      survives: 'no lease makes the lock stricter, never looser: only liveness shows it (a crashed holder\'s key never expires: `--faults client-kill --property liveness` kills it). Liveness cannot be judged in this family: a waiter cut off or paused counts as "could not acquire", so `--property all` with these faults makes the unmutated recipe UNSAFE too (a blackholed server under a waiter: liveness violation after 50.9 s, docs/benchmarks.md)',
      equivalent: true,
    },
    {
      name: 'ttl-seconds-as-ms',
      search: "r.set(key, value, 'PX', ttlMs, 'NX')",
      replace: "r.set(key, value, 'PX', Math.ceil(ttlMs / 1000), 'NX')",
      why: 'the TTL converted to seconds for EX, then the call changed to PX: a 1 ms lease',
    },
    {
      name: 'acquire-error-as-success',
      search: "(await r.set(key, value, 'PX', ttlMs, 'NX')) !== 'OK'",
      replace: "(await r.set(key, value, 'PX', ttlMs, 'NX').catch(() => 'OK')) === 'OK'",
      why: 'a timed-out SET taken as granted ("it probably went through"), so a client cut off from Redis works as holder',
    },
  ]),
  ...at({ family: 'redis', file: 'outcome.ts', module: 'set-px-lua.ts' }, [
    {
      name: 'timeout-as-not-sent',
      search: "if (err.name === 'ReplyError') return true;",
      replace: "if (err.name === 'ReplyError' || err.message.includes('timed out')) return true;",
      why: 'a command timeout classified as "never happened", so an unlock whose reply was lost is believed not done (and the lock still held)',
    },
  ]),
  // ── the fenced variant (set-px-lua-fenced.ts): the token must grow with every grant ──
  ...at({ family: 'redis', file: 'set-px-lua-fenced.ts' }, [
    {
      name: 'fence-token-server-time',
      search: 'return redis.call("incr", KEYS[2])',
      replace: 'return tonumber(redis.call("time")[1])',
      why: 'token not monotonic: the server\'s time in seconds as the token ("time only goes forward"), equal for two grants in one second',
    },
    {
      name: 'fence-token-read-before-grant',
      search: "const token = Number(await r.eval(ACQUIRE_WITH_TOKEN, 2, key, `${key}:fence`, value, o.ttlMs));\n      return token > 0 ? { key, value, token } : null;",
      replace: "const token = Number(await r.get(`${key}:fence`)) + 1;\n      if (Number(await r.eval(ACQUIRE_WITH_TOKEN, 2, key, `${key}:fence`, value, o.ttlMs)) <= 0) return null;\n      return { key, value, token };",
      why: 'the fencing token read before the write that grants the lock: two waiters read the same counter value',
    },
  ]),
  // ── Redisson-style reentrant hash lock with a watchdog (redisson-style.ts) ──
  ...at({ family: 'watchdog', file: 'redisson-style.ts' }, [
    {
      name: 'redisson-reentry-any-owner',
      search: "if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then",
      replace: "if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hlen', KEYS[1]) > 0) then",
      why: 're-entry tested on "the hash has a holder" instead of "the holder is me"',
    },
    {
      name: 'redisson-unlock-no-owner-check',
      search: "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then\n    return nil\nend\nlocal counter",
      replace: 'local counter',
      why: 'owner check dropped from the unlock script: decrementing a missing field gives -1, and the key (another holder\'s) is deleted',
    },
    {
      name: 'redisson-renew-no-owner-check',
      search: "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then\n    redis.call('pexpire', KEYS[1], ARGV[1])\n    return 1",
      replace: "if (redis.call('exists', KEYS[1]) == 1) then\n    redis.call('pexpire', KEYS[1], ARGV[1])\n    return 1",
      why: 'renew extending without owner check: the watchdog keeps alive a key it no longer owns and is told "renewed"',
      survives: 'the watchdog renews by itself (the recipe has no Lock.renew), so its answer is in no history and no belief; it renews another holder\'s key only between a late unlock\'s wake-up and that unlock\'s end, which then stops it, and the other holder\'s own unlock still deletes the key: one extra lease for a dead holder\'s key, liveness only, which client pauses (a paused waiter counts as unavailable) keep out of this family',
      equivalent: true,
    },
    {
      name: 'redisson-watchdog-every-lease',
      search: 'Math.max(1, Math.floor(leaseMs / 3))',
      replace: 'Math.max(1, leaseMs)',
      why: 'the watchdog renews once per lease instead of every third: the renewal lands just after the key expired',
    },
  ]),
  // ── Redlock (redlock.ts; redlock-fenced is its `fencedRecipe`) ──
  ...at({ family: 'redlock', file: 'redlock.ts' }, [
    {
      name: 'redlock-quorum-floor',
      search: 'const quorum = Math.floor(nodes.length / 2) + 1;',
      replace: 'const quorum = Math.floor(nodes.length / 2);',
      why: 'quorum off by one: "half of the nodes" instead of a majority, so two clients can each hold 2 of 5',
    },
    {
      name: 'redlock-unknown-vote-counts',
      search: "const locked = votes.filter((v) => v === 'yes').length;",
      replace: "const locked = votes.filter((v) => v === 'yes' || v === 'unknown').length;",
      why: 'a SET that timed out counted as a vote, since it "may have been applied"',
    },
    {
      name: 'redlock-no-validity-check',
      search: 'if (locked >= quorum && validity > 0 && (!fenced || token !== undefined)) {',
      replace: 'if (locked >= quorum && (!fenced || token !== undefined)) {',
      why: 'validity check dropped: a majority is taken as enough, however long the acquisition took',
    },
    {
      name: 'redlock-validity-ignores-elapsed',
      search: 'const validity = ttlMs - elapsed - drift;',
      replace: 'const validity = ttlMs - drift;',
      why: 'validity = the TTL, not the TTL left: the time spent acquiring is forgotten',
    },
    {
      name: 'redlock-no-drift',
      search: 'const validity = ttlMs - elapsed - drift;',
      replace: 'const validity = ttlMs - elapsed;',
      why: 'clock drift not subtracted from the validity',
      survives: 'without drift the validity still ends at the acquire\'s start + TTL on the client\'s monotonic clock, no later than any master\'s key (set after that start) expires, while every clock runs at the same rate: only a master clock running fast, or jumping forward by less than the drift margin (TTL/100 + 2 ms, 10 ms at the default TTL), tells them apart; no fault kind makes a clock run fast, and clock-bump draws jumps past the lease, which break the correct Redlock too (so the family leaves it out)',
      equivalent: true,
    },
    {
      name: 'redlock-validity-from-votes',
      search: "    await ctx.point?.('before-validity-check');\n    const elapsed = now() - t0;",
      replace: "    const votedAt = now();\n    await ctx.point?.('before-validity-check');\n    const elapsed = now() - votedAt;",
      why: 'the acquisition time taken once the votes are back, not before the first SET: the validity reported leaves out the time the votes took (a library bug seen in the wild)',
    },
    {
      name: 'redlock-valid-until-wall-clock',
      search: 'validUntilMs: ctx.clock.monoMs() + validity',
      replace: 'validUntilMs: ctx.clock.wallMs() + validity',
      why: 'the validity deadline set on the wall clock while it is checked against the monotonic one (the wrong clock)',
    },
    {
      name: 'redlock-release-lost-as-released',
      search: "return 'lost';   // every node answered and fewer than a majority still held our value",
      replace: "return 'released';   // every node answered: done",
      why: 'unlock reports success when every node answered, whether or not the key was still ours',
    },
  ]),
  ...at({ family: 'redlock', file: 'redlock.ts', exportName: 'fencedRecipe' }, [
    {
      name: 'redlock-fenced-first-node-token',
      search: 'token = Math.max(...fences) + 1;',
      replace: 'token = fences[0]! + 1;',
      why: 'the token taken from the first node that answered rather than the largest of the majority',
    },
    {
      name: 'redlock-fenced-no-raise-check',
      search: "if (raised.filter((v) => v === 'yes').length < quorum) token = undefined;",
      replace: '',
      why: 'the token used although it was written back to fewer than a majority',
    },
    {
      name: 'redlock-fenced-no-writeback',
      search: 'if c < tonumber(ARGV[2]) then redis.call("set", KEYS[2], ARGV[2]) end',
      replace: '',
      why: 'token not monotonic: the counter is read but the new token never written back',
    },
  ]),
  // ── ZooKeeper (zk-ephemeral-sequential.ts, zk-ephemeral.ts, zk-common.ts) ──
  ...at({ family: 'zookeeper', file: 'zk-ephemeral-sequential.ts' }, [
    {
      name: 'zk-sort-by-name',
      search: '.sort((a, b) => sequenceOf(a) - sequenceOf(b))',
      replace: '.sort()',
      why: 'children sorted by name, which starts with the client id, not by the sequence number',
    },
    {
      name: 'zk-no-recheck',
      search: "if (afterWait === 'assume-held') return mine;",
      replace: 'return mine;',
      why: 'not re-checking the children after the watch fires or the wait ends (the Redis and ZooKeeper post\'s own code)',
    },
    {
      name: 'zk-watch-lowest',
      search: "await sessions.awaitDeletion(s, `${dir}/${kids[i - 1]}`, left);\n      if (afterWait === 'assume-held') return mine;",
      replace: 'await sessions.awaitDeletion(s, `${dir}/${kids[0]}`, left);\n      return mine;',
      why: 'watching the wrong node (the lowest, not the predecessor) and proceeding when it goes',
    },
    {
      name: 'zk-second-in-line-holds',
      search: 'if (i === 0) return mine;',
      replace: 'if (i <= 1) return mine;',
      why: 'off by one in the queue position (counted from 1, or "the one before me is about to go")',
    },
  ]),
  ...at({ family: 'zookeeper', file: 'zk-common.ts', module: 'zk-ephemeral.ts' }, [
    {
      name: 'zk-session-loss-ignored',
      search: "choiceOption(ctx, recipe, 'onDisconnect', ON_DISCONNECT, 'treat-as-loss')",
      replace: "choiceOption(ctx, recipe, 'onDisconnect', ON_DISCONNECT, 'ignore')",
      why: 'session-loss handler ignored: no state listener, the client works on after its session is gone',
    },
    {
      name: 'zk-renew-exists-only',
      search: "if (stat && stat.ephemeralOwner === h.session.sessionId() && !this.lapsed(h)) return 'renewed';",
      replace: "if (stat) return 'renewed';",
      why: 'renew checks only that the lock node exists, not that this session owns it',
      survives: 'renew sends exists() only while its session saw no loss, and ZooKeeper answers a session\'s request only while that session lives, when its own ephemeral node is still at the path (another client\'s node can be there only after this session ended): any stat it returns is its own node as of a moment inside the renew, so the dropped owner check and the dropped second look at the session change no answer the history can show',
      equivalent: true,
    },
  ]),
  ...at({ family: 'zookeeper', file: 'zk-ephemeral.ts' }, [
    {
      name: 'zk-node-exists-as-held',
      search: 'if (!isNodeExists(err)) throw err;',
      replace: 'if (isNodeExists(err)) return { key, path, session: s, epoch: s.lossEpoch } as ZkHeld;\n            throw err;',
      why: 'NODE_EXISTS on a retried create taken as "my own node from before the connection loss"',
    },
  ]),
  // ── MySQL/MariaDB (mysql-get-lock.ts, mysql-for-update.ts, mysql-unique-key.ts) ──
  ...at({ family: 'mysql', file: 'mysql-get-lock.ts' }, [
    {
      name: 'getlock-timeout-as-success',
      search: 'if (Number(rows[0]?.got) === 1) return holds.hold(key, c);',
      replace: 'if (rows[0]?.got !== null) return holds.hold(key, c);',
      why: 'GET_LOCK\'s 0 (timed out) treated as success: only NULL (an error) was checked',
    },
  ]),
  ...at({ family: 'mysql', file: 'mysql-for-update.ts' }, [
    {
      name: 'for-update-autocommit',
      search: "await c.exec('START TRANSACTION');",
      replace: "await c.exec('SET autocommit = 1');",
      why: 'FOR UPDATE outside a transaction (autocommit): the row lock ends with the SELECT',
    },
    {
      name: 'for-update-no-row',
      search: 'await ensureRow(c, key);',
      replace: '',
      why: 'FOR UPDATE on a row that may not exist: only a gap lock, which two transactions share',
    },
    {
      name: 'for-update-timeout-as-locked',
      search: 'if (!(isServerError(err) && err.errno === ER_LOCK_WAIT_TIMEOUT)) throw err;\n      }\n      const left',
      replace: 'if (isServerError(err) && err.errno === ER_LOCK_WAIT_TIMEOUT) return true; // waited our turn\n        throw err;\n      }\n      const left',
      why: 'a lock wait timeout taken as having waited long enough to own the row',
    },
  ]),
  ...at({ family: 'mysql', file: 'mysql-unique-key.ts' }, [
    {
      name: 'unique-key-reentry-any-owner',
      search: "'UPDATE test_lock SET count = count + 1 WHERE id = ? AND thName = ?', [key, owner]",
      replace: "'UPDATE test_lock SET count = count + 1 WHERE id = ?', [key]",
      why: 're-entry without the owner in the WHERE clause: any client "re-enters" another\'s lock',
    },
  ]),
  // ── PostgreSQL (pg-advisory.ts, pg-advisory-xact.ts, pg-advisory-fenced.ts) ──
  ...at({ family: 'postgres', file: 'pg-advisory.ts' }, [
    {
      name: 'pg-try-lock-shared',
      search: 'SELECT pg_try_advisory_lock(${LOCK_ID}) AS v',
      replace: 'SELECT pg_try_advisory_lock_shared(${LOCK_ID}) AS v',
      why: 'the shared variant picked from the docs\' list of advisory functions: shared holders do not exclude each other',
    },
    {
      name: 'pg-try-lock-answer-unread',
      search: 'async () => (await c.bool(`SELECT pg_try_advisory_lock(${LOCK_ID}) AS v`, [key])) || null',
      replace: 'async () => (await c.rows(`SELECT pg_try_advisory_lock(${LOCK_ID}) AS v`, [key])).length > 0 || null',
      why: 'the try-lock\'s row taken as the answer ("the query succeeded"), whether it said true or false, as if it were the blocking pg_advisory_lock',
    },
    {
      name: 'pg-session-xact-lock',
      search: 'SELECT pg_try_advisory_lock(${LOCK_ID}) AS v',
      replace: 'SELECT pg_try_advisory_xact_lock(${LOCK_ID}) AS v',
      why: 'the transaction-level function used for a session lock ("so it can never leak"): outside a transaction it is released when its SELECT ends',
    },
  ]),
  ...at({ family: 'postgres', file: 'pg-advisory-xact.ts' }, [
    {
      name: 'pg-xact-lock-outside-transaction',
      search: "await c.rows('BEGIN');",
      replace: '',
      why: 'the transaction-level lock taken without BEGIN: in autocommit it is released when its own SELECT ends',
    },
  ]),
  ...at({ family: 'postgres', file: 'pg-advisory-fenced.ts' }, [
    {
      name: 'pg-fence-not-bumped',
      search: 'DO UPDATE SET version = f.version + 1 RETURNING version',
      replace: 'DO UPDATE SET version = f.version RETURNING version',
      why: 'the upsert\'s "+ 1" lost (written as a touch that keeps the row): every grant after the first carries the same token',
    },
    {
      name: 'pg-fence-token-now',
      search: 'RETURNING version\', [key]);',
      replace: 'RETURNING extract(epoch FROM now())::bigint AS version\', [key]);',
      why: 'token not monotonic: the server\'s time in seconds as the token ("time only goes forward"), equal for two grants in one second',
    },
  ]),
  // ── etcd (etcd-mutex.ts; etcd-mutex-fenced is its `fencedRecipe`; etcd-lease-lock.ts) ──
  ...at({ family: 'etcd', file: 'etcd-mutex.ts' }, [
    {
      name: 'etcd-mutex-sort-by-key',
      search: ".sort('Create', 'Ascend')",
      replace: ".sort('Key', 'Ascend')",
      why: 'the queue ordered by key name (the lease id in hex) instead of by create revision',
    },
    {
      name: 'etcd-mutex-release-by-prefix',
      search: 'const r = await client.delete().key(h.mine as string).exec();',
      replace: 'const r = await client.delete().prefix(`${h.key}/`).exec();',
      why: 'unlock deletes the lock\'s prefix, not its own key ("clear the lock"): a late unlock deletes the next holder\'s key and the waiters\'',
    },
    {
      name: 'etcd-mutex-own-key-not-rechecked',
      search: "if (first && String(first.create_revision) === rev) return",
      replace: "if (!first || Number(first.create_revision) >= Number(rev)) return",
      why: 'holds once no key older than its own is left, without checking its own key is still there (its lease may have lapsed while it waited), as Go\'s Mutex did before it checked its session',
    },
    {
      name: 'etcd-mutex-cancel-deletes-prefix',
      search: 'await client.delete().key(mine).exec();',
      replace: 'await client.delete().prefix(prefix).exec();',
      why: 'a waiter that gives up "cleans up the lock" by deleting its prefix: the holder\'s key goes with its own',
    },
    {
      name: 'etcd-mutex-proceeds-after-wait',
      search: 'if (left <= 0) break;',
      replace: 'if (left <= 0) return { key, mine, lease };',
      why: 'a wait that ran out taken as "the holder must be gone by now": it proceeds as holder without looking again',
    },
  ]),
  ...at({ family: 'etcd', file: 'etcd-lease-lock.ts' }, [
    {
      name: 'etcd-lock-error-as-held',
      search: 'if (err instanceof EtcdLockFailedError) return null; // taken (the package revoked its lease)\n        throw err;',
      replace: 'if (err instanceof EtcdLockFailedError) return null; // taken (the package revoked its lease)\n        return { key, lock }; // a timeout: it probably went through',
      why: 'an acquire that failed other than "taken" (a deadline, a member down) taken as granted: it probably went through',
    },
    {
      name: 'etcd-lease-lock-unlock-by-key',
      search: 'await (h.lock as ReturnType<typeof client.lock>).release();',
      replace: 'await client.delete().key(h.key as string).exec();',
      why: 'unlock deletes the lock key by name instead of revoking its own lease: a late unlock deletes the next holder\'s key',
    },
  ]),
  ...at({ family: 'etcd', file: 'etcd-mutex.ts', exportName: 'fencedRecipe' }, [
    {
      name: 'etcd-fenced-token-version',
      search: '...(fenced ? { token: Number(rev) } : {})',
      replace: '...(fenced ? { token: Number(first.version) } : {})',
      why: 'the key\'s version (its count of writes, 1 for every queue key) read where its create revision was meant',
    },
    {
      name: 'etcd-fenced-token-lease-id',
      search: '...(fenced ? { token: Number(rev) } : {})',
      replace: '...(fenced ? { token: id } : {})',
      why: 'the lease id as the token ("unique per holder"): ids are made by whichever member granted them (its id in the high bits), not in grant order',
    },
  ]),
];
