// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// Signals from the first line (bin/lockpick.mjs installs its handlers before anything loads;
// a signal before node runs that line, its first few tens of milliseconds, is node's own):
// whenever a signal comes, the exit code is the contract's (README "Exit codes"): Ctrl-C 130;
// SIGTERM or SIGHUP 3 for a command with no verdict yet, 0 for a standing service told to
// stop (env up, proxy); never 128 + the signal's number, and nothing left running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { bin, repoRoot, tempStore } from './run-helpers.ts';
import { pidsWithEnv } from '../../src/env/procfs.ts';

const MARK = 'LOCKPICK_EARLY_SIGNAL_TEST';

/** Starts lockpick, sends `sig` `afterMs` after it catches it (or once stdout says `when`), resolves with its exit code. */
function signalled(args: string[], sig: NodeJS.Signals, afterMs: number, when?: RegExp): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const mark = `${Date.now()}-${Math.random()}`;
  const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, [MARK]: mark } });
  let stderr = '';
  let out = '';
  child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
  // From the moment node runs bin/lockpick.mjs's first lines, plus afterMs: SIGHUP is caught then
  // (node itself catches SIGINT and SIGTERM from its start, to reset the terminal, never SIGHUP).
  const send = () => {
    const caught = () => {
      try {
        const mask = BigInt(`0x${/^SigCgt:\s*([0-9a-f]+)/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? '0'}`);
        return mask & 1n;
      } catch { return 0n; }
    };
    const t0 = Date.now();   // a lockpick that never catches SIGHUP gets the signal after 3 s all the same
    const poll = setInterval(() => { if (caught() || Date.now() - t0 > 3000) { clearInterval(poll); setTimeout(() => child.kill(sig), afterMs); } }, 5);
    child.once('exit', () => clearInterval(poll));
  };
  let sent = false;
  if (when) child.stdout.on('data', (b: Buffer) => { out += b.toString(); if (!sent && when.test(out)) { sent = true; send(); } });
  else send();
  return new Promise((resolve) => child.on('exit', (code, signal) => {
    // Whatever it started (servers, the proxy, a module probe) carries the mark: none may be left.
    setTimeout(() => {
      const left = pidsWithEnv(MARK, mark);
      for (const p of left) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }
      assert.deepEqual(left, [], `${args.join(' ')}: processes left after ${sig}`);
      resolve({ code, signal, stderr });
    }, 500);
  }));
}

test('run: SIGTERM or SIGHUP at any moment of start-up → 3, Ctrl-C → 130', async () => {
  for (const [sig, at, want] of [['SIGTERM', 0, 3], ['SIGTERM', 400, 3], ['SIGHUP', 1000, 3], ['SIGINT', 0, 130], ['SIGINT', 1000, 130]] as const) {
    const r = await signalled(['run', '--lock', 'redis-set-px-lua', '--faults', 'client-pause', '--time', '30', '--store', tempStore()], sig, at);
    assert.equal(r.code, want, `${sig} after ${at} ms: ${r.stderr}`);
  }
});

test('check: SIGTERM as soon as it can be caught → 3, not 143', async () => {
  const r = await signalled(['check', join(repoRoot, 'histories/double-holder.jsonl')], 'SIGTERM', 0);
  assert.equal(r.code, 3, `check ended by SIGTERM: ${r.code} ${r.signal}`);
});

test('env up: SIGHUP while the servers start → 0 and nothing left; proxy: Ctrl-C → 130, SIGTERM → 0', async () => {
  const up = await signalled(['env', 'up', 'etcd', '--members', '1'], 'SIGHUP', 500);
  assert.equal(up.code, 0, up.stderr);
  const upReady = await signalled(['env', 'up', 'etcd', '--members', '1'], 'SIGTERM', 0, /ready/);
  assert.equal(upReady.code, 0, upReady.stderr);
  const p = await signalled(['proxy', '--port', '0'], 'SIGINT', 0, /"url"/);
  assert.equal(p.code, 130, p.stderr);
  const t = await signalled(['proxy', '--port', '0'], 'SIGTERM', 0, /"url"/);
  assert.equal(t.code, 0, t.stderr);
  const early = await signalled(['proxy', '--port', '0'], 'SIGINT', 0);
  assert.equal(early.code, 130, early.stderr);
});
