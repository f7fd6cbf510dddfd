// store/<run-id>/: history.jsonl (every event of the invocation, written as it
// happens), test.json (what was run: lock, topology, faults, plan, seed,
// versions), results.json (verdicts), counterexample/ (the minimal failing run).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { HistoryEvent } from '../history/types.ts';

export function newRunDir(root: string): { id: string; dir: string } {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
  const id = `${stamp}-${randomBytes(3).toString('hex')}`;
  const dir = resolve(root, id);
  mkdirSync(dir, { recursive: true });
  return { id, dir };
}

export function writeJson(path: string, data: unknown): void {
  writeFileSync(path, JSON.stringify(data, null, 2) + '\n');
}

export function writeEvents(path: string, events: HistoryEvent[]): void {
  writeFileSync(path, events.map((e) => JSON.stringify(e)).join('\n') + (events.length ? '\n' : ''));
}

let cached: Record<string, string> | undefined;

/** node, redis-server and lockpick versions, for test.json. */
export function versions(): Record<string, string> {
  if (cached) return cached;
  const v: Record<string, string> = { node: process.version };
  try {
    const out = execFileSync('redis-server', ['--version'], { encoding: 'utf8', timeout: 5000 });
    v.redis = /v=(\S+)/.exec(out)?.[1] ?? out.trim();
  } catch {
    v.redis = 'not found';
  }
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    v.lockpick = pkg.version;
  } catch {
    v.lockpick = 'unknown';
  }
  cached = v;
  return v;
}

export function readTestJson(dir: string): Record<string, unknown> {
  const path = join(dir, 'test.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`--replay ${dir}: no test.json there (${path}); give a run directory written by 'lockpick run', e.g. store/<run-id>`);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${path}: not valid JSON (${(e as Error).message}); it should be the test.json 'lockpick run' wrote`);
  }
}
