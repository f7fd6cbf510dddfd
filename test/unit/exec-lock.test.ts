// The process client Lock (src/locks/exec-lock.ts) against real child processes: each reply
// becomes the Lock contract's outcome, named points reach ctx.point, the client-clock offset
// reaches a Python child through the clock shim, a protocol break is a LockContractError, and
// close leaves no process behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ExecLock, shellCommand } from '../../src/locks/exec-lock.ts';
import { isDefiniteFailure, isLockContractError, type LockContext } from '../../src/locks/lock.ts';
import { execRecipeFromName, execRecipeFromFile, missingProgram } from '../../src/locks/exec-recipe.ts';
import { shimPath } from '../../src/env/clock-shim.ts';

const ANSWERS = '/usr/bin/python3 test/fixtures/process-clients/answers.py';

function ctx(over: Partial<LockContext> = {}): LockContext {
  return {
    clientId: 'c1', endpoints: [{ id: 'n1', host: '127.0.0.1', port: 1 }],
    clock: { wallMs: () => Date.now(), monoMs: () => performance.now() },
    commandTimeoutMs: 1000, ...over,
  };
}

function alive(pid: number | undefined): boolean {
  return pid !== undefined && existsSync(`/proc/${pid}`);
}

const pidOf = (l: ExecLock) => (l as unknown as { child?: { pid?: number } }).child?.pid;

test('replies map to the Lock contract: held (token, state, validity), busy, failed, error, lost', async () => {
  const lock = new ExecLock({ command: ANSWERS, cwd: process.cwd(), clock: 'none', renews: true }, ctx());
  await lock.start();
  const pid = pidOf(lock);
  try {
    const h = await lock.acquire('k', { ttlMs: 800, waitMs: 0 });
    assert.deepEqual(h, { key: 'k', state: { k: 'k' } });
    assert.equal(await lock.release(h!), 'released');
    assert.equal(await lock.release({ key: 'lost' }), 'lost');
    assert.equal(await lock.acquire('busy', { ttlMs: 800, waitMs: 0 }), null);
    await assert.rejects(lock.acquire('failed', { ttlMs: 800, waitMs: 0 }), (e) => isDefiniteFailure(e) && /as asked: failed/.test((e as Error).message));
    await assert.rejects(lock.acquire('error', { ttlMs: 800, waitMs: 0 }), (e) => !isDefiniteFailure(e) && !isLockContractError(e) && /as asked: error/.test((e as Error).message));
    const before = performance.now();
    const v = await lock.acquire('valid', { ttlMs: 800, waitMs: 0 });
    // 5 s on the child's CLOCK_MONOTONIC, seen on this process's performance.now().
    assert.ok(v!.validUntilMs! > before + 4000 && v!.validUntilMs! < performance.now() + 5001, `${v!.validUntilMs} vs ${before}`);
    // A renewed validity moves the hold's (9 s); a renew that reports none leaves it.
    const beforeRenew = performance.now();
    assert.equal(await lock.renew!(v!, 800), 'renewed');
    assert.ok(v!.validUntilMs! > beforeRenew + 8000 && v!.validUntilMs! < performance.now() + 9001, `${v!.validUntilMs} vs ${beforeRenew}`);
    const kept = v!.validUntilMs;
    const plain = { ...v!, key: 'other' };
    assert.equal(await lock.renew!(plain, 800), 'renewed');
    assert.equal(plain.validUntilMs, kept);
  } finally {
    await lock.close();
  }
  assert.ok(!alive(pid), 'the child outlived close()');
});

test("the Python helper's renew: Renewed(valid_until_ms) moves the hold's validity, True keeps it, False is lost", async () => {
  const lock = new ExecLock({ command: '/usr/bin/python3 test/fixtures/process-clients/renewing.py', cwd: process.cwd(), clock: 'none', renews: true }, ctx());
  try {
    const h = (await lock.acquire('valid', { ttlMs: 800, waitMs: 0 }))!;
    const before = performance.now();
    assert.ok(h.validUntilMs! < before + 5001, `${h.validUntilMs} vs ${before}`);
    assert.equal(await lock.renew!(h, 800), 'renewed');
    assert.ok(h.validUntilMs! > before + 6000 && h.validUntilMs! < performance.now() + 7001, `${h.validUntilMs} vs ${before}`);
    const plain = (await lock.acquire('plain', { ttlMs: 800, waitMs: 0 }))!;
    const kept = plain.validUntilMs;
    assert.equal(await lock.renew!(plain, 800), 'renewed');
    assert.equal(plain.validUntilMs, kept);
    assert.equal(await lock.renew!({ ...plain, key: 'lost' }, 800), 'lost');
  } finally {
    await lock.close();
  }
});

test("every request carries lockpick's CLOCK_MONOTONIC as it was written, the reading a child without that clock maps its own from", async () => {
  const lock = new ExecLock({ command: ANSWERS, cwd: process.cwd(), clock: 'none', renews: false }, ctx());
  try {
    await lock.start();
    const before = Number(process.hrtime.bigint()) / 1e6;
    const h = await lock.acquire('mono', { ttlMs: 800, waitMs: 0 });
    const after = Number(process.hrtime.bigint()) / 1e6;
    const { sent, read } = h!.state as { sent: number; read: number };
    assert.ok(sent >= before && sent <= after, `monotonicMs ${sent} outside this request (${before}..${after})`);
    assert.ok(read >= sent && read <= after, `the child read the line at ${read}, before lockpick wrote it (${sent}) or after the answer (${after})`);
  } finally {
    await lock.close();
  }
});

test("time the worker could not run (stopped by a client pause, starved) does not count against a reply's deadline", async () => {
  // Deadline 2 × 100 ms; the child (answering 150 ms after the request) and the worker's loop are stopped until just past
  // the deadline, as a client pause stops both: the deadline counts only the time they ran, the child is not killed.
  const lock = new ExecLock({ command: ANSWERS, cwd: process.cwd(), clock: 'none', renews: false }, ctx({ commandTimeoutMs: 100 }));
  try {
    await lock.start();
    const pid = pidOf(lock);
    const held = lock.acquire('slow', { ttlMs: 800, waitMs: 0 });
    await new Promise((r) => setTimeout(r, 5));   // the request is written
    // A client pause: the child stopped with the worker, until 55 ms past the deadline; it answers only after.
    process.kill(pid!, 'SIGSTOP');
    const until = performance.now() + 250;
    while (performance.now() < until) { /* the worker stopped */ }
    process.kill(pid!, 'SIGCONT');
    assert.deepEqual(await held, { key: 'slow' });
    assert.equal(pidOf(lock), pid, 'the same child answered');
    // Without a stall the deadline holds: a child that answers late is an unknown outcome.
    const strict = new ExecLock({ command: ANSWERS, cwd: process.cwd(), clock: 'none', renews: false }, ctx({ commandTimeoutMs: 50 }));
    await assert.rejects(strict.acquire('slow', { ttlMs: 800, waitMs: 0 }), /no answer to acquire\('slow'\) in time/);
    await strict.close();
  } finally {
    await lock.close();
  }
});

test("a named point waits in ctx.point before the child goes on", async () => {
  const seen: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  const lock = new ExecLock({ command: ANSWERS, cwd: process.cwd(), clock: 'none', renews: false }, ctx({ point: async (n) => { seen.push(n); await held; } }));
  try {
    let done = false;
    const p = lock.acquire('point', { ttlMs: 800, waitMs: 0 }).then((h) => { done = true; return h; });
    await new Promise((r) => setTimeout(r, 1500));   // longer than the reply deadline: a point stops it
    assert.deepEqual(seen, ['after-compare']);
    assert.equal(done, false, 'the child went on before go');
    release();
    assert.deepEqual(await p, { key: 'point' });
  } finally {
    await lock.close();
  }
});

test('the client-clock offset reaches a Python child through the clock shim', async () => {
  let offset = 0;
  const lock = new ExecLock({ command: ANSWERS, cwd: process.cwd(), clock: 'libc', renews: false, shim: () => shimPath() },
    ctx({ clock: { wallMs: () => Date.now() + offset, monoMs: () => performance.now(), offsetMs: () => offset } }));
  try {
    const t0 = Number((await lock.acquire('clock', { ttlMs: 800, waitMs: 0 }))!.token);
    assert.ok(Math.abs(t0 - Date.now()) < 2000, `${t0} vs ${Date.now()}`);
    offset = 60_000;
    const t1 = Number((await lock.acquire('clock', { ttlMs: 800, waitMs: 0 }))!.token);
    assert.ok(Math.abs(t1 - (Date.now() + 60_000)) < 2000, `the child's clock did not move: ${t1 - Date.now()} ms ahead`);
  } finally {
    await lock.close();
  }
});

test("a moved clock while a Go binary runs in the client's process tree: told unreached (once per step), naming the binary", async () => {
  let offset = 0;
  const told: string[] = [];
  const lock = new ExecLock({ command: ANSWERS, cwd: process.cwd(), clock: 'libc', renews: false, shim: () => shimPath() },
    ctx({ clock: { wallMs: () => Date.now() + offset, monoMs: () => performance.now(), offsetMs: () => offset }, unreached: (kind, reason) => told.push(`${kind}: ${reason}`) }));
  try {
    offset = -5000;
    // Python alone reads its clock through libc: nothing to tell.
    await lock.release((await lock.acquire('k', { ttlMs: 800, waitMs: 0 }))!);
    assert.deepEqual(told, []);
    // The same client with a Go child (etcdctl) while the clock is moved.
    const h = await lock.acquire('go', { ttlMs: 800, waitMs: 0 });
    assert.equal(told.length, 1, told.join('\n'));
    assert.match(told[0]!, /^client-clock: its process \d+ \(\/usr\/bin\/etcdctl\) is a Go executable, which reads the clock without libc/);
    await lock.release(h!);
    assert.equal(told.length, 1, 'told again within the same step');
  } finally {
    await lock.close();
  }
});

test("a Go binary seen in one client of a recipe: another client of it is told unreached at its first step, though its own requests never ran one", async () => {
  let offset = 0;
  const told: string[] = [];
  const cfg = { command: ANSWERS, cwd: process.cwd(), clock: 'libc' as const, renews: false, shim: () => shimPath() };
  const ctxOf = () => ctx({ clock: { wallMs: () => Date.now() + offset, monoMs: () => performance.now(), offsetMs: () => offset }, unreached: (kind, reason) => told.push(`${kind}: ${reason}`) });
  const first = new ExecLock(cfg, ctxOf());
  const second = new ExecLock(cfg, ctxOf());
  const other = new ExecLock({ ...cfg }, ctxOf()); // another recipe (its own config) running the same command
  try {
    // The first client holds through etcdctl (a Go binary), before any step: seen.
    await first.release((await first.acquire('go', { ttlMs: 800, waitMs: 0 }))!);
    assert.deepEqual(told, []);
    offset = -5000;
    // The second runs only Python, yet its step is told unreached, naming the recipe's program (the
    // first, whose clock moves too, tells its own).
    await second.release((await second.acquire('k', { ttlMs: 800, waitMs: 0 }))!);
    const byRecipe = () => told.filter((t) => /^client-clock: its recipe's program \(process \d+ of another client\) \(\/usr\/bin\/etcdctl\) is a Go executable/.test(t));
    assert.equal(byRecipe().length, 1, told.join('\n'));
    // Another recipe learns nothing from it.
    const before = told.length;
    await other.release((await other.acquire('k', { ttlMs: 800, waitMs: 0 }))!);
    assert.equal(told.length, before, told.join('\n'));
    assert.equal(byRecipe().length, 1, told.join('\n'));
  } finally {
    await Promise.all([first.close(), second.close(), other.close()]);
  }
});

test('a line outside the protocol is a LockContractError naming the line, and the child is killed', async () => {
  const cmd = `/usr/bin/python3 -c "import sys; sys.stdin.readline(); print('{\\"t\\":\\"ready\\"}', flush=True); sys.stdin.readline(); print('oops', flush=True); sys.stdin.readline()"`;
  const lock = new ExecLock({ command: cmd, cwd: process.cwd(), clock: 'none', renews: false }, ctx());
  await lock.start();
  const pid = pidOf(lock);
  await assert.rejects(lock.acquire('k', { ttlMs: 800, waitMs: 0 }), (e) => isLockContractError(e) && /not a protocol message.*the line it wrote: oops/.test((e as Error).message));
  await assert.rejects(lock.close(), (e) => isLockContractError(e));
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(!alive(pid), 'the child outlived the violation');
});

test('no answer in time: an unknown outcome, the child killed and a fresh one started on the next request', async () => {
  const cmd = `/usr/bin/python3 -c "import sys; sys.stdin.readline(); print('{\\"t\\":\\"ready\\"}', flush=True); [sys.stdin.readline() for _ in range(9)]"`;
  const lock = new ExecLock({ command: cmd, cwd: process.cwd(), clock: 'none', renews: false }, ctx({ commandTimeoutMs: 150 }));
  await lock.start();
  const pid = pidOf(lock);
  await assert.rejects(lock.acquire('k', { ttlMs: 800, waitMs: 0 }), (e) => !isDefiniteFailure(e) && !isLockContractError(e) && /no answer to acquire\('k'\) in time: unknown outcome/.test((e as Error).message));
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(!alive(pid), 'the silent child was not killed');
  await assert.rejects(lock.acquire('k', { ttlMs: 800, waitMs: 0 }), /no answer/);
  assert.notEqual(pidOf(lock) ?? -1, pid);
  await lock.close();
});

test('a command with variable assignments before it: they set its environment, and the child is the command itself', async () => {
  assert.equal(shellCommand('perl lock.pl'), 'exec perl lock.pl');
  assert.equal(shellCommand('UNLOCK=lua A="x y" B=\'1 2\' C=a\\ b  perl lock.pl'), 'UNLOCK=lua A="x y" B=\'1 2\' C=a\\ b  exec perl lock.pl');
  assert.equal(shellCommand('X=$(id) perl lock.pl'), 'exec X=$(id) perl lock.pl', 'a substitution is not a plain assignment: left to the shell as it was');
  assert.equal(shellCommand('./run.sh A=1'), 'exec ./run.sh A=1', 'an argument that looks like one stays an argument');
  // Through a real shell: the variable reaches the child's environment, and the child is python3 itself.
  const lock = new ExecLock({ command: `LOCKPICK_TEST_VAR='two words' ${ANSWERS}`, cwd: process.cwd(), clock: 'none', renews: true }, ctx());
  await lock.start();
  const pid = pidOf(lock);
  try {
    assert.equal(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0], '/usr/bin/python3', 'the child is the command, not a shell');
    assert.match(readFileSync(`/proc/${pid}/environ`, 'utf8'), /(^|\0)LOCKPICK_TEST_VAR=two words\0/);
  } finally {
    await lock.close();
  }
  assert.ok(!alive(pid), 'the child outlived close()');
});

test('exec:CMD and a recipe file name a process client recipe', () => {
  const r = execRecipeFromName(`exec:${ANSWERS}`)!;
  assert.equal(r.name, `exec:${ANSWERS}`);
  assert.deepEqual(r.topology, { kind: 'redis', masters: 1 });
  assert.equal(r.model, 'mutex');
  assert.equal(execRecipeFromName('redis-set-px-del'), undefined);
  assert.throws(() => execRecipeFromName('exec: '), /needs a command/);
  const f = execRecipeFromFile('test/fixtures/process-clients/get-del-point.json', 'get-del-point.json');
  assert.deepEqual(f.points, ['after-compare']);
  assert.throws(() => execRecipeFromFile('package.json', 'package.json'), /exec: the command.*\n.*name|not a recipe field/s);
});

test("a recipe's startMs is the ready deadline (a JVM under load needs more than the default 10 s)", async () => {
  const cmd = `/usr/bin/python3 -c "import sys, time; sys.stdin.readline(); time.sleep(30)"`;
  const lock = new ExecLock({ command: cmd, cwd: process.cwd(), clock: 'none', renews: false, startMs: 300 }, ctx());
  const t0 = performance.now();
  await assert.rejects(lock.start(), (e) => isLockContractError(e) && /no \{"t":"ready"\} within 0\.3 s of \{"t":"start"\}/.test((e as Error).message));
  assert.ok(performance.now() - t0 < 5000);
  await assert.rejects(lock.close(), (e) => isLockContractError(e));
  const dir = mkdtempSync(join(tmpdir(), 'exec-recipe-'));
  try {
    writeFileSync(join(dir, 'r.json'), JSON.stringify({ exec: 'true', startMs: 'soon' }));
    assert.throws(() => execRecipeFromFile(join(dir, 'r.json'), 'r.json'), /startMs: a number of ms above 0 and at most 600000/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every recipe field has bounds, named in its message: startMs 1e400 or 1e12, sessionMs, realLease, texts, points', () => {
  const dir = mkdtempSync(join(tmpdir(), 'exec-recipe-'));
  const refused = (body: string, why: RegExp) => {
    writeFileSync(join(dir, 'r.json'), body);
    assert.throws(() => execRecipeFromFile(join(dir, 'r.json'), 'r.json'), (e) => why.test((e as Error).message) && /see docs\/process-clients\.md/.test((e as Error).message), body);
  };
  try {
    refused('{"exec": "true", "startMs": 1e400}', /startMs: a number of ms above 0 and at most 600000/);
    refused('{"exec": "true", "startMs": 1e12}', /startMs: a number of ms above 0 and at most 600000/);
    refused('{"exec": "true", "sessionMs": 1e12}', /sessionMs: a number of ms above 0 and at most 3600000/);
    refused('{"exec": "true", "realLease": {"granularityMs": -1}}', /realLease\.granularityMs: a number of ms from 0 to 3600000/);
    refused('{"exec": "true", "realLease": {"minMs": 1e400}}', /realLease\.minMs: a number of ms from 0 to 3600000/);
    refused('{"exec": "true", "realLease": {"seconds": true}}', /realLease\.seconds: not a field/);
    refused('{"exec": "true", "realLease": 1000}', /realLease: an object/);
    refused(JSON.stringify({ exec: 'true', name: 'x'.repeat(5000) }), /name: a non-empty string of at most 4096 characters/);
    refused(JSON.stringify({ exec: 'x'.repeat(5000) }), /exec: the command that starts the client, a non-empty string of at most 4096/);
    refused(JSON.stringify({ exec: 'true', points: Array.from({ length: 65 }, (_, i) => `p${i}`) }), /points: .*at most 64/);
    refused('{"exec": "true", "ioPoints": "hooks"}', /ioPoints: 'proxy', the only value for a process client/);
    refused('{"exec": "true", "keepsAlive": "yes"}', /keepsAlive: true or false/);
    writeFileSync(join(dir, 'r.json'), '{"exec": "true", "ioPoints": "proxy", "realLease": {"granularityMs": 1000, "marginMs": 1000}, "startMs": 600000, "keepsAlive": true, "channels": ["keepalive"]}');
    const r = execRecipeFromFile(join(dir, 'r.json'), 'r.json');
    assert.deepEqual(r.realLease, { granularityMs: 1000, marginMs: 1000 });
    assert.equal(r.ioPoints, 'proxy');
    // A lease kept alive on a connection of its own: keepalive-cut can reach it.
    assert.equal(r.keepsAlive, true);
    assert.deepEqual(r.channels, ['keepalive']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("start carries the run's TTL, its longest acquire wait, the command timeout and the recipe's real lease", async () => {
  // The child writes the start line's fields to stderr and exits: the refusal quotes them.
  const cmd = `/usr/bin/python3 -c "import sys, json; m = json.loads(sys.stdin.readline()); sys.stderr.write(json.dumps({k: m.get(k) for k in ['commandTimeoutMs', 'ttlMs', 'waitMs', 'realLease']}, separators=(',', ':'))); sys.exit(1)"`;
  const lock = new ExecLock({ command: cmd, cwd: process.cwd(), clock: 'none', renews: false, realLease: { granularityMs: 1000 } }, ctx({ ttlMs: 800, waitMs: 400 }));
  await assert.rejects(lock.start(), (e) => {
    const m = (e as Error).message;
    return isLockContractError(e) && /exited with code 1 before answering/.test(m)
      && /\{"commandTimeoutMs":1000,"ttlMs":800,"waitMs":400,"realLease":\{"granularityMs":1000\}\}/.test(m);
  });
  await lock.close().catch(() => {});
});

test('a new child that cannot start after the first one was ready fails its request (fail, its last stderr line), and the next request starts another', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lockpick-restart-'));
  // Start 1: ready, then dies during its first request. Start 2: cannot reach its server (as under a cut link). Start 3: ready.
  writeFileSync(join(dir, 'client.py'), [
    'import json, os, sys',
    'n_file = os.path.join(os.path.dirname(__file__), "starts")',
    'n = int(open(n_file).read()) + 1 if os.path.exists(n_file) else 1',
    'open(n_file, "w").write(str(n))',
    'sys.stdin.readline()',
    'if n == 2:',
    '    print("Traceback (most recent call last):", file=sys.stderr)',
    '    print("psycopg2.OperationalError: connection refused", file=sys.stderr)',
    '    sys.exit(1)',
    'print(json.dumps({"t": "ready"}), flush=True)',
    'for line in sys.stdin:',
    '    m = json.loads(line)',
    '    if n == 1: os._exit(9)',
    '    print(json.dumps({"t": "held", "id": m["id"]}), flush=True)',
  ].join('\n'));
  const lock = new ExecLock({ command: `/usr/bin/python3 ${join(dir, 'client.py')}`, cwd: dir, clock: 'none', renews: false }, ctx());
  try {
    await lock.start();
    await assert.rejects(lock.acquire('k', { ttlMs: 800, waitMs: 0 }), (e) => !isDefiniteFailure(e) && !isLockContractError(e) && /exited with code 9 during acquire/.test((e as Error).message));
    await assert.rejects(lock.acquire('k', { ttlMs: 800, waitMs: 0 }), (e) => {
      assert.ok(isDefiniteFailure(e) && !isLockContractError(e), String(e));
      assert.equal((e as Error).message, 'a new client process did not start: it exited with code 1 before answering {"t":"start"} with {"t":"ready"}: psycopg2.OperationalError: connection refused');
      return true;
    });
    assert.deepEqual(await lock.acquire('k', { ttlMs: 800, waitMs: 0 }), { key: 'k' });
    assert.equal(readFileSync(join(dir, 'starts'), 'utf8'), '3');
  } finally {
    await lock.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a validUntilMs on the wall clock (epoch ms) is refused as a protocol break that says so', async () => {
  const lock = new ExecLock({ command: ANSWERS, cwd: process.cwd(), clock: 'none', renews: false }, ctx());
  try {
    await lock.start();
    await assert.rejects(lock.acquire('wall', { ttlMs: 800, waitMs: 0 }),
      (e) => isLockContractError(e) && /validUntilMs [\d.]+ is \d+ days ahead of CLOCK_MONOTONIC \(now \d+\): it looks like the wall clock \(ms since 1970\)/.test((e as Error).message));
  } finally {
    await lock.close().catch(() => {});
  }
});

test("a client's program that cannot be found is said before anything starts; what the shell must work out is left to it", () => {
  assert.equal(missingProgram('/usr/bin/python3 x.py', '/'), undefined);
  assert.equal(missingProgram('python3 x.py', '/'), undefined);
  assert.equal(missingProgram('UNLOCK=lua perl lock.pl', '/'), undefined);
  assert.equal(missingProgram('nosuch-lockpick-prog --x', '/'), 'nosuch-lockpick-prog is not on PATH');
  assert.equal(missingProgram('FOO=1 nosuch-lockpick-prog', '/'), 'nosuch-lockpick-prog is not on PATH');
  assert.equal(missingProgram('./client.sh', '/tmp'), './client.sh is not an executable file (from /tmp)');
  const plain = mkdtempSync(join(tmpdir(), 'lockpick-noexec-'));
  writeFileSync(join(plain, 'client.py'), 'print(1)\n', { mode: 0o644 });
  assert.equal(missingProgram('./client.py', plain), `./client.py is not an executable file (from ${plain})`);   // there, but not executable
  rmSync(plain, { recursive: true, force: true });
  assert.equal(missingProgram('"my prog" x', '/'), undefined);   // quoted: the shell's to read
  assert.throws(() => execRecipeFromName('exec:nosuch-lockpick-prog'), /--lock exec:nosuch-lockpick-prog: the client's program cannot be found: nosuch-lockpick-prog is not on PATH\n {2}fix: /);
});

test("a recipe's commandTimeoutMs reaches start (a library with whole-second timeouts); out of bounds it is refused naming the field", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lockpick-cmd-timeout-'));
  try {
    writeFileSync(join(dir, 'r.json'), JSON.stringify({ exec: 'true', commandTimeoutMs: 2000 }));
    assert.equal(execRecipeFromFile(join(dir, 'r.json'), 'r.json').commandTimeoutMs, 2000);
    for (const bad of [10, 60_000, '2000']) {
      writeFileSync(join(dir, 'r.json'), JSON.stringify({ exec: 'true', commandTimeoutMs: bad }));
      assert.throws(() => execRecipeFromFile(join(dir, 'r.json'), 'r.json'), /commandTimeoutMs: a number of ms from 50 to 30000/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
