// Runs `lockpick run ... --json` as a user would and returns its exit code and summary.
import { tempDir } from '../support/temp-dir.ts';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunSummary } from '../../src/runner/index.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const bin = path.join(repoRoot, 'bin/lockpick.mjs');

export function tempStore(): string {
  return tempDir('lockpick-store-');
}

/** The run directories under a --store root, store/<lock>/<run-id>/ (the `latest` links left out), oldest first. */
export function runDirs(store: string): string[] {
  if (!existsSync(store)) return [];
  // Read while a run writes the store: the `latest` links are replaced through a temporary
  // name (store.ts relink), which can vanish between the listing and the lstat.
  const real = (p: string) => {
    try { const st = lstatSync(p); return !st.isSymbolicLink() && st.isDirectory(); } catch { return false; }
  };
  const list = (d: string) => { try { return readdirSync(d); } catch { return []; } };
  return list(store).map((l) => path.join(store, l)).filter(real)
    .flatMap((l) => list(l).map((id) => path.join(l, id)).filter(real))
    .sort((a, b) => path.basename(a).localeCompare(path.basename(b)));
}

export interface CliResult { code: number | null; summary?: RunSummary; stdout: string; stderr: string; ms: number }

export function lockpick(args: string[], timeoutMs = 150_000, env: NodeJS.ProcessEnv = {}, cwd = repoRoot): Promise<CliResult> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGTERM'); reject(new Error(`lockpick ${args.join(' ')} took over ${timeoutMs} ms\n${stderr}`)); }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      let summary: RunSummary | undefined;
      try { summary = JSON.parse(stdout.trim().split('\n').pop() ?? '') as RunSummary; } catch { /* no JSON: the caller says why */ }
      resolve({ code, summary, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

export function anomalyTypes(r: CliResult): string[] {
  return ((r.summary?.minimal?.anomalies ?? []) as { type: string }[]).map((a) => a.type);
}

/**
 * Processes whose environment carries `LOCKPICK_TEST_MARK=mark` (a lockpick run given that
 * variable passes it to everything it starts) and whose command line matches `cmd`: one run's
 * own processes, whatever else runs on the machine.
 */
export function markedProcesses(mark: string, cmd: RegExp): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${d}/environ`, 'utf8').split('\0').includes(`LOCKPICK_TEST_MARK=${mark}`)) continue;
      if (cmd.test(readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' '))) out.push(Number(d));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

/** Ok acquires by another client between an anchored client partition's start and its stop (one history's lines, in order). */
export function grantsDuringAnchoredCuts(lines: string[]): number {
  type Ev = { type: string; f: string; process: number | string; client?: string; value?: { id?: string; target?: string; params?: { point?: string } } };
  const clientOf = new Map<number | string, string>();
  const cut = new Map<string, string>();   // fault id → the client cut
  let n = 0;
  for (const e of lines.map((l) => JSON.parse(l) as Ev)) {
    if (e.f === 'run-start') cut.clear();
    if (e.type === 'invoke' && e.client) clientOf.set(e.process, e.client);
    if (e.f === 'partition-start' && e.value?.params?.point && e.value.target?.startsWith('client:')) cut.set(e.value.id!, e.value.target.slice('client:'.length));
    if (e.f === 'partition-stop' && e.value?.id) cut.delete(e.value.id);
    if (e.type === 'ok' && e.f === 'acquire' && [...cut.values()].some((c) => c !== clientOf.get(e.process))) n++;
  }
  return n;
}
