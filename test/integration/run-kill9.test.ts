// test-lane: beside (servers of its own on free ports; its verdicts hang on counts and on pauses or kills far longer than a lease, not on fine timing)
// kill -9 of `lockpick run` mid-run: what was recorded is a checkable history,
// and nothing it started survives the next invocation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bin, lockpick, repoRoot, runDirs, tempStore } from './run-helpers.ts';
import { readHistory } from '../../src/history/index.ts';
import { checkHistory } from '../../checkers/index.ts';
import { loadBackends } from '../../checkers/backends.ts';

// The recorded history names its backend (run-start): checkHistory needs the registry loaded, as its async callers do.
await loadBackends();

function descendants(pid: number): number[] {
  const out: number[] = [];
  let text = '';
  try { text = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }); } catch { return out; }
  for (const p of text.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0)) out.push(p, ...descendants(p));
  return out;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);   // a zombie is gone for our purposes
  } catch {
    return false;
  }
}

test('kill -9 mid-run: the history is checkable and no process survives the next invocation', async () => {
  const store = tempStore();
  // Own process group, as from a shell: its clients then get SIGHUP/SIGCONT even if stopped when it dies.
  // Faults the Lua lock survives (pauses before its commands, servers paused), so the search is still
  // running when it is killed: clients and servers may be stopped at that moment.
  const child = spawn(process.execPath, [bin, 'run', '--lock', 'redis-set-px-lua', '--faults', 'client-pause,pause', '--pause-at', 'send', '--clients', '4',
    '--first-failure', '--time', '60', '--store', store], { cwd: repoRoot, stdio: 'ignore', detached: true });
  let history = '';
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const dirs = runDirs(store);
    if (dirs.length) history = path.join(dirs[0]!, 'history.jsonl');
    if (history && existsSync(history) && readFileSync(history, 'utf8').split('\n').length > 60) break;
    await sleep(200);
  }
  assert.ok(history && existsSync(history), 'no history was written within 60 s');
  const pids = descendants(child.pid!);
  assert.ok(pids.length >= 3, `expected servers, proxy and clients under lockpick, saw ${pids.length} processes`);
  process.kill(child.pid!, 'SIGKILL');
  await new Promise((r) => child.once('exit', r));

  const h = await readHistory(history);
  assert.ok(h.ops.length > 10, `only ${h.ops.length} operations recorded`);
  const result = checkHistory(h, { model: 'mutex' });
  assert.notEqual(result.valid, 'unknown');

  // The next invocation clears what the killed one left.
  const next = await lockpick(['run', '--lock', 'redis-set-px-lua', '--first-failure', '--time', '1', '--runs', '1', '--store', store, '--json']);
  // One short run may see no contention (exit 3); what matters is that it ran (not 2 or 4).
  assert.ok(next.code === 0 || next.code === 3, `exit ${next.code}\n${next.stderr}`);
  await sleep(500);
  const survivors = pids.filter(alive);
  assert.deepEqual(survivors, [], `still running: ${survivors.map((p) => { try { return readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' '); } catch { return String(p); } }).join(' | ')}`);
});
