// The recorder on a disk that fills up or refuses a write: it never throws out of
// append, never leaves a torn last line, says why in `failure`, and keeps the
// run's events in memory so the run can still be checked.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Recorder } from '../../src/runner/recorder.ts';
import type { HistoryEvent } from '../../src/history/types.ts';

const root = resolve(import.meta.dirname, '../..');
const recorderUrl = pathToFileURL(join(root, 'src/runner/recorder.ts')).href;

const ev = (i: number): HistoryEvent => ({ type: 'invoke', f: 'acquire', process: i, key: 'k0', value: { pad: 'x'.repeat(100) } });

/** Every line of `path` is a whole JSON event; returns how many. */
function wholeLines(path: string): number {
  const text = readFileSync(path, 'utf8');
  assert.ok(text === '' || text.endsWith('\n'), 'the file ends with a whole line');
  const lines = text.split('\n').slice(0, -1);
  lines.forEach((l, i) => assert.doesNotThrow(() => JSON.parse(l), `line ${i + 1} parses: ${l.slice(0, 80)}`));
  return lines.length;
}

test('/dev/full: append does not throw, failure names ENOSPC, the run goes on in memory', () => {
  const r = new Recorder('/dev/full');
  r.beginRun();
  for (let i = 0; i < 5; i++) assert.equal(r.append(ev(i)).process, i);
  assert.match(r.failure ?? '', /^full: no space left on device \(ENOSPC\) after 0 events; the run is inconclusive$/);
  assert.equal(r.written, 0);
  assert.equal(r.count, 5);
  assert.equal(r.endRun().length, 5, 'the run keeps every event for its check');
  r.close();
});

test('a short write (file size limit) is cut back to the last whole line', () => {
  // RLIMIT_FSIZE makes the kernel take part of a line and then refuse (EFBIG): the
  // torn-line case of a full disk, without root. SIGXFSZ ignored, as `trap ''` does.
  const dir = tempDir('lockpick-recorder-');
  try {
    const file = join(dir, 'history.jsonl');
    const script = `const { Recorder } = await import(${JSON.stringify(recorderUrl)});
      const r = new Recorder(${JSON.stringify(file)});
      r.beginRun();
      for (let i = 0; i < 200; i++) r.append({ type: 'invoke', f: 'acquire', process: i, key: 'k0', value: { pad: 'x'.repeat(100) } });
      console.log(JSON.stringify({ failure: r.failure, written: r.written, count: r.count, run: r.endRun().length }));`;
    const p = spawnSync('sh', ['-c', `ulimit -f 8 && trap '' XFSZ && exec "$0" --import tsx --input-type=module -e "$1"`, process.execPath, script], { cwd: root, encoding: 'utf8' });
    assert.equal(p.status, 0, p.stderr);
    const out = JSON.parse(p.stdout) as { failure: string; written: number; count: number; run: number };
    assert.ok(out.written > 0 && out.written < 200, `some events fit (${out.written})`);
    assert.equal(out.failure, `history.jsonl: file too large (EFBIG) after ${out.written} events; the run is inconclusive`);
    assert.equal(wholeLines(file), out.written, 'the file holds exactly the written events, no torn line');
    assert.equal(out.count, 200);
    assert.equal(out.run, 200);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a full tmpfs: ENOSPC, the history parses to its last line', (t) => {
  if (process.getuid?.() !== 0) return t.skip('mounting a tmpfs needs root');
  const dir = tempDir('lockpick-recorder-');
  const mnt = join(dir, 'small');
  mkdirSync(mnt);
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { encoding: 'utf8' });
  if (mount.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return t.skip(`cannot mount a tmpfs here: ${mount.stderr.trim()}`);
  }
  try {
    const file = join(mnt, 'history.jsonl');
    const r = new Recorder(file);
    r.beginRun();
    let i = 0;
    while (r.failure === undefined && i < 10_000) r.append(ev(i++));
    for (let j = 0; j < 10; j++) r.append(ev(i++));   // later events: no throw, not written
    r.close();
    assert.match(r.failure ?? '', /^history\.jsonl: no space left on device \(ENOSPC\) after \d+ events; the run is inconclusive$/);
    assert.ok(r.written > 100, `the disk took events before it filled (${r.written})`);
    assert.equal(r.failure, `history.jsonl: no space left on device (ENOSPC) after ${r.written} events; the run is inconclusive`);
    assert.equal(wholeLines(file), r.written);
    assert.equal(r.endRun().length, i, 'every event stays in memory');
  } finally {
    spawnSync('umount', [mnt]);
    rmSync(dir, { recursive: true, force: true });
  }
});
