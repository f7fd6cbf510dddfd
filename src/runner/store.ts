// store/<lock>/<run-id>/ (store/latest links to the newest): lockpick.log (what the run printed), history.jsonl (every event of the invocation, written as it
// happens), test.json (what was run: lock, topology, faults, plan, seed,
// versions), results.json (verdicts), counterexample/ (the minimal failing run).
// A store path that cannot be used is the user's to fix (UsageError, exit 2); a
// disk that fills up or fails on the way makes the run inconclusive (exit 3).
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { makeDir } from '../make-dir.ts';
import { randomBytes } from 'node:crypto';
import type { HistoryEvent } from '../history/types.ts';
import { fsReason, UsageError } from '../errors.ts';
import { requireRegularFile } from '../regular-file.ts';
import { outputError, writeOutput } from '../output.ts';
import { validatePlan } from '../workload/plan.ts';
import { checkTestJson } from './stored-files.ts';
import { packageVersion } from '../package-root.ts';

function storeError(what: string, e: unknown, fix: string): Error {
  return outputError(what, e, fix);
}

/** A lock as a directory name: a registry name as is, a module by its file name without extension; other characters than [A-Za-z0-9._-] become _. */
export function storeName(lockLabel: string): string {
  const base = /\.([cm]?[jt]s|json)$/.test(lockLabel) && !lockLabel.startsWith('exec:') ? basename(lockLabel).replace(/\.([cm]?[jt]s|json)$/, '') : lockLabel;
  return base.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'lock';
}

/** Points `link` at `target` (relative), replacing what was there in one rename; a file system without symlinks keeps none. */
function relink(link: string, target: string): void {
  const tmp = `${link}.${process.pid}.tmp`;
  try {
    rmSync(tmp, { force: true });
    symlinkSync(target, tmp);
    renameSync(tmp, link);
  } catch {
    rmSync(tmp, { force: true });
  }
}

/**
 * store/<lock>/<run-id>/, as Jepsen's store/<test>/<time>/, and the links
 * store/latest and store/<lock>/latest to it (the newest run started).
 */
export function newRunDir(root: string, lockLabel: string): { id: string; dir: string } {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
  const id = `${stamp}-${randomBytes(3).toString('hex')}`;
  const lock = storeName(lockLabel);
  const dir = resolve(root, lock, id);
  try {
    makeDir(dir);
  } catch (e) {
    throw storeError(`--store ${root}: cannot create the run directory ${dir}`, e, 'give --store a directory that can be written (it is created if missing), e.g. --store ./store');
  }
  relink(resolve(root, 'latest'), join(lock, id));
  relink(resolve(root, lock, 'latest'), id);
  return { id, dir };
}

/** The run's log: every line the run printed (its report and progress lines), appended to DIR/lockpick.log as it goes. */
export function runLog(dir: string): (text: string) => void {
  const file = join(dir, 'lockpick.log');
  let failed = false;
  return (text: string) => {
    if (failed) return;
    try {
      appendFileSync(file, text);
    } catch {
      failed = true;   // a copy of what was printed: the run goes on (results.json says a disk failure)
    }
  };
}

/** A run file, whole or not at all (src/output.ts): a full disk is exit 3, a store that cannot be written exit 2. */
function writeFileOrThrow(path: string, text: string): void {
  writeOutput(path, text, { fix: 'give --store a directory that can be written' });
}

export function writeJson(path: string, data: unknown): void {
  writeFileOrThrow(path, JSON.stringify(data, null, 2) + '\n');
}

export function writeEvents(path: string, events: HistoryEvent[]): void {
  writeFileOrThrow(path, events.map((e) => JSON.stringify(e)).join('\n') + (events.length ? '\n' : ''));
}

let cached: Record<string, string> | undefined;
const packageVersions = new Map<string, string>();

/** The installed version of an OS package (dpkg), or 'not installed' / 'unknown' (no dpkg). */
function packageVersionOf(pkg: string): string {
  let v = packageVersions.get(pkg);
  if (v !== undefined) return v;
  try {
    v = execFileSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] }).trim() || 'not installed';
  } catch (e) {
    v = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'unknown (no dpkg-query)' : 'not installed';
  }
  packageVersions.set(pkg, v);
  return v;
}

/**
 * node, redis-server (the resource node) and lockpick versions, for test.json; with the
 * topology's OS packages (TopologyDef.packages), each under "package:<name>".
 */
export function versions(packages: readonly string[] = []): Record<string, string> {
  const base = baseVersions();
  if (packages.length === 0) return base;
  return { ...base, ...Object.fromEntries(packages.map((p) => [`package:${p}`, packageVersionOf(p)])) };
}

function baseVersions(): Record<string, string> {
  if (cached) return cached;
  const v: Record<string, string> = { node: process.version };
  try {
    const out = execFileSync('redis-server', ['--version'], { encoding: 'utf8', timeout: 5000 });
    v.redis = /v=(\S+)/.exec(out)?.[1] ?? out.trim();
  } catch {
    v.redis = 'not found';
  }
  try {
    v.lockpick = packageVersion();
  } catch {
    v.lockpick = 'unknown';
  }
  cached = v;
  return v;
}

/**
 * DIR/test.json of a run to replay, checked: it parses, holds a valid "plan" and a
 * "lock_spec". Anything missing or malformed is a UsageError naming the file.
 */
export function readTestJson(dir: string): Record<string, unknown> {
  const path = join(dir, 'test.json');
  const fix = `give a run directory written by 'lockpick run', e.g. --replay store/<lock>/<run-id>, or a scenario: --replay scenarios/NAME`;
  if (!existsSync(dir)) throw new UsageError(`--replay ${dir}: no such directory\n  fix: ${fix}`);
  if (!statSync(dir).isDirectory()) throw new UsageError(`--replay ${dir}: not a directory\n  fix: ${fix}`);
  // A run's first counterexample/ keeps no test.json of its own: its plan is the run's.
  if (!existsSync(path) && /^counterexample$/.test(basename(resolve(dir))) && existsSync(join(dirname(resolve(dir)), 'test.json'))) return readTestJson(dirname(resolve(dir)));
  if (existsSync(path)) requireRegularFile(path, `--replay ${dir}`, fix);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`--replay ${dir}: cannot read ${path}: ${fsReason(e)}\n  fix: ${fix}`);
  }
  let test: unknown;
  try {
    test = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${path}: not valid JSON (${(e as Error).message})\n  fix: it must be the test.json 'lockpick run' wrote; ${fix}`);
  }
  if (test === null || typeof test !== 'object' || Array.isArray(test)) {
    throw new UsageError(`${path}: not a JSON object\n  fix: it must be the test.json 'lockpick run' wrote; ${fix}`);
  }
  const t = checkTestJson(test, path); // every field a reader relies on, named when wrong
  // A search without a violation stores "plan": null: there is nothing to replay.
  if (t.plan === null || t.plan === undefined) {
    throw new UsageError(`${path}: "plan" is ${t.plan === null ? 'null (that run found no violation, so no plan was kept)' : 'missing'}\n  fix: replay a run that found a violation (its test.json holds the plan) or a scenario directory`);
  }
  try {
    validatePlan(t.plan, path);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const spec = t.lock_spec as Record<string, unknown> | undefined;
  if (!spec || typeof spec !== 'object' || (typeof spec.name !== 'string' && typeof spec.path !== 'string')) {
    throw new UsageError(`${path}: "lock_spec" is missing or wrong\n  fix: it must be {"name": "<lock>"} or {"path": "<module>"} as 'lockpick run' wrote it`);
  }
  return t;
}
