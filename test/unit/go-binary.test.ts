// Go executables told apart by their ELF sections (src/env/go-binary.ts), on real binaries:
// Debian's etcdctl (a Go binary, dynamically linked) and ones that are not (python3, node, a text
// file); and a running etcdctl found among a process's descendants.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { elfSectionNames, goProcesses, isGoExecutable } from '../../src/env/go-binary.ts';

test('etcdctl is a Go executable; python3, node and a text file are not', () => {
  assert.equal(isGoExecutable('/usr/bin/etcdctl'), true);
  assert.ok(elfSectionNames('/usr/bin/etcdctl').includes('.go.buildinfo'));
  assert.equal(isGoExecutable('/usr/bin/python3'), false);
  assert.ok(elfSectionNames('/usr/bin/python3').includes('.text'), 'python3 is ELF, read through');
  assert.equal(isGoExecutable(process.execPath), false);
  assert.equal(isGoExecutable('/etc/passwd'), false);
  assert.equal(isGoExecutable('/no/such/file'), false);
});

test('a running Go binary below a process is found by its pid and path; a non-Go one is not', async () => {
  // sh (not Go) starts etcdctl (Go) waiting to dial nowhere, and sleep (not Go).
  const sh = spawn('/bin/sh', ['-c', 'sleep 20 & etcdctl --endpoints=127.0.0.1:1 --dial-timeout=20s get x; wait'], { stdio: 'ignore', detached: true });
  try {
    let found: { pid: number; exe: string }[] = [];
    for (let i = 0; i < 50 && found.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      found = goProcesses(sh.pid!);
    }
    assert.equal(found.length, 1, JSON.stringify(found));
    assert.equal(found[0]!.exe, '/usr/bin/etcdctl');
    assert.notEqual(found[0]!.pid, sh.pid);
  } finally {
    try { process.kill(-sh.pid!, 'SIGKILL'); } catch { /* gone */ }   // its group: sh, etcdctl and sleep
  }
});
