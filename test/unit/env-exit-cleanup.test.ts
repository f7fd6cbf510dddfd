// A lockpick that exits with its environment still up (an internal error, exit 4) stops its
// servers in the exit hook and removes the whole lockpick-env-* dir, not only each server's.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const lifecycle = resolve(import.meta.dirname, '../../src/env/lifecycle.ts');

test('the exit hook removes the lockpick-env-* dir of a server it stops', () => {
  const root = tempDir('lockpick-env-');
  try {
    // A stand-in server: `sleep 30` in the node dir, recorded as lockpick records its servers; then exit 4.
    const script = `
      import { spawn } from 'node:child_process';
      import { mkdirSync } from 'node:fs';
      import { recordProcess } from ${JSON.stringify(lifecycle)};
      const cwd = ${JSON.stringify(join(root, 'n1'))};
      mkdirSync(cwd);
      const p = spawn('sleep', ['30'], { cwd, detached: true, stdio: 'ignore' });
      recordProcess({ pid: p.pid, name: 'sleep n1', kind: 'server', match: cwd });
      console.log(p.pid);
      process.exit(4);`;
    let out = '';
    try { execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }); } catch (e) { out = (e as { stdout: string }).stdout; }
    const pid = Number(out.trim());
    assert.ok(pid > 0, `no pid in ${JSON.stringify(out)}`);
    let alive = true;
    try { process.kill(pid, 0); } catch { alive = false; }
    if (alive) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    assert.equal(existsSync(root), false, `${root} left behind`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
