// A history read from a pipe or FIFO (`lockpick check <(zcat h.jsonl.gz)`): the format sniff
// must not eat the first bytes nor open the file a second time (that waited for a writer forever).
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readHistory } from '../../src/history/index.ts';

const root = path.resolve(import.meta.dirname, '../..');

async function throughFifo(file: string): Promise<Awaited<ReturnType<typeof readHistory>>> {
  const fifo = path.join(tempDir('lockpick-fifo-'), 'history');   // no extension: the format is sniffed
  execFileSync('mkfifo', [fifo]);
  const w = createWriteStream(fifo);
  w.end(readFileSync(file));
  const reading = readHistory(fifo);
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('reading the FIFO hung')), 10_000).unref());
  return Promise.race([reading, timeout]);
}

for (const f of ['histories/double-holder.jsonl', 'histories/many-info.jsonl', 'histories/jepsen-vector.edn']) {
  test(`${f} through a FIFO reads as the file does`, async () => {
    const piped = await throughFifo(path.join(root, f));
    const direct = await readHistory(path.join(root, f));
    assert.equal(piped.ops.length, direct.ops.length);
    assert.deepEqual(piped.ops.map((o) => [o.process, o.f, o.outcome, o.invokeLine]), direct.ops.map((o) => [o.process, o.f, o.outcome, o.invokeLine]));
  });
}
