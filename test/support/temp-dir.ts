// A private temp dir for one test file, removed when the test process exits,
// so a suite run leaves nothing in the machine's temp dir (a failed assertion
// included: the exit hook still runs).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];
let hooked = false;

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', () => { for (const d of made) rmSync(d, { recursive: true, force: true }); });
  }
  return dir;
}
