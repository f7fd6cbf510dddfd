// A check loads the topology registry (the backends' words) only when the words can show: a
// streamed lock check whose keys are all valid, and any check under a register model, does not
// load it; an invalid one does, and says exactly what a check with the registry loaded from the
// start says. Run in a fresh process (this one may have the registry loaded by other imports).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { loadBackends } from '../../checkers/backends.ts';
import { checkJsonlStreaming } from '../../checkers/stream.ts';
import { tmpHistory, jsonl } from './history-tmp.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const EVIDENCE = path.join(ROOT, 'scenarios/evidence');
const evidence = readdirSync(EVIDENCE).map((d) => path.join(EVIDENCE, d, 'history.jsonl')).filter((f) => existsSync(f)).sort();

const runStart = (backend: string) => ({ type: 'info', f: 'run-start', process: 'nemesis', value: { run: 1, lock: 'l', backend, clients: 2, faults: 0 }, time: 1 });
const validLock = tmpHistory(jsonl(
  runStart('zookeeper'),
  { type: 'invoke', f: 'acquire', process: 0, key: 'k', time: 2 }, { type: 'ok', f: 'acquire', process: 0, key: 'k', time: 3 },
  { type: 'invoke', f: 'release', process: 0, key: 'k', time: 4 }, { type: 'ok', f: 'release', process: 0, key: 'k', time: 5 },
  { type: 'invoke', f: 'acquire', process: 1, key: 'k', time: 6 }, { type: 'ok', f: 'acquire', process: 1, key: 'k', time: 7 },
));
const register = tmpHistory(jsonl(
  runStart('etcd'),
  { type: 'invoke', f: 'write', process: 0, key: 'r', value: 1, time: 2 }, { type: 'ok', f: 'write', process: 0, key: 'r', value: 1, time: 3 },
  { type: 'invoke', f: 'read', process: 1, key: 'r', time: 4 }, { type: 'ok', f: 'read', process: 1, key: 'r', value: 2, time: 5 },
));

const child = `
import { backendsLoaded } from './checkers/backends.ts';
import { checkJsonlStreaming } from './checkers/stream.ts';
import { checkHistoryOnThreads } from './checkers/threads.ts';
import { readHistory } from './src/history/index.ts';
const [validLock, register, ...files] = process.argv.slice(1);
const strip = ({ elapsed_ms, check_ms, parse_ms, ...rest }) => rest;
const out = { lock: strip(await checkJsonlStreaming(validLock, { model: 'mutex' })), afterLock: backendsLoaded() };
out.register = strip(await checkHistoryOnThreads(await readHistory(register), { model: 'cas-register' }));
out.afterRegister = backendsLoaded();
out.evidence = [];
for (const f of files) out.evidence.push(strip(await checkJsonlStreaming(f, { model: 'mutex' })));
out.afterEvidence = backendsLoaded();
console.log(JSON.stringify(out));
`;

test('the registry is loaded only for words an invalid lock key shows, and the words are the same', async () => {
  const text = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child, validLock, register, ...evidence], { cwd: ROOT, encoding: 'utf8' });
  const out = JSON.parse(text);
  assert.equal(out.lock.valid, true);
  assert.equal(out.afterLock, false, 'a valid lock history naming a backend loaded the topology registry');
  assert.equal(out.register.valid, false);
  assert.equal(out.afterRegister, false, 'a register check loaded the topology registry');
  assert.ok(out.evidence.some((r: { valid: unknown }) => r.valid === false), 'the evidence histories include an invalid one');
  assert.equal(out.afterEvidence, true);
  // With the registry loaded from the start (this process): the same results, words included.
  await loadBackends();
  const strip = ({ elapsed_ms: _e, check_ms: _c, parse_ms: _p, ...rest }: Awaited<ReturnType<typeof checkJsonlStreaming>>) => rest;
  assert.deepEqual(out.lock, strip(await checkJsonlStreaming(validLock, { model: 'mutex' })));
  for (const [i, f] of evidence.entries()) assert.deepEqual(out.evidence[i], strip(await checkJsonlStreaming(f, { model: 'mutex' })), f);
});
