// The course of `lockpick serve`: one catalogue entry at a time run as `lockpick demo NAME`
// in a child process (its own process group, tagged by a variable its servers inherit), into
// STORE/course/, stoppable, its verdict and page reported when it ends. Only entries of the
// catalogue are run: the page names an entry, never a command, a module or a path.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { packageRoot } from '../package-root.ts';
import { killTree } from '../env/reap.ts';
import { findDemo } from '../demo/registry.ts';
import type { Lang } from '../i18n/lang.ts';

/** The variable every process of a course run carries: what `stop` reaps by (src/env/reap.ts). */
export const COURSE_TAG = 'LOCKPICK_SERVE_COURSE';

export interface CourseState {
  name: string;
  title: string;
  expected: string;
  status: 'running' | 'done' | 'stopped' | 'failed';
  startedAt: number;
  verdict?: string;
  /** The entry's page under the store ('course/NAME.html'), once written. */
  page?: string;
  error?: string;
}

/** How long a stopped run gets to close its servers itself before everything it started is killed. */
const GRACE_MS = 8000;

export class Course {
  state: CourseState | undefined;
  private child: ChildProcess | undefined;
  private tag = '';
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly storeRoot: string, private readonly onChange: (s: CourseState | undefined) => void) {}

  /** Starts entry `name` (an id of the catalogue); an error message when it cannot. */
  start(name: string, lang: Lang): string | undefined {
    const entry = findDemo(name);
    if (!entry) return `no catalogue entry '${name}'`;
    if (this.state?.status === 'running') return `'${this.state.name}' is running: stop it first (one at a time)`;
    this.tag = randomBytes(8).toString('hex');
    const out = join(this.storeRoot, 'course');
    const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'lockpick.mjs'), 'demo', entry.name, '--out', out, '--json', '--lang', lang], {
      // An IPC channel it watches (bin/lockpick.mjs, LOCKPICK_STOP_WITH_PARENT): if serve dies
      // without stopping it (SIGKILL), the channel closes and the run stops its servers itself.
      cwd: packageRoot(), detached: true, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env, [COURSE_TAG]: this.tag, LOCKPICK_STOP_WITH_PARENT: '1' },
    });
    this.child = child;
    const state: CourseState = { name: entry.name, title: entry.title, expected: entry.expected, status: 'running', startedAt: Date.now() };
    this.state = state;
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => { stdout += d; });
    child.stderr!.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
    this.exited = new Promise((resolve) => {
      child.on('close', (code) => {
        this.child = undefined;
        killTree(undefined, COURSE_TAG, this.tag);   // anything it left (a server it could not stop)
        if (state.status === 'running') {
          const result = lastJson(stdout) as { outcomes?: { verdict?: string; page?: string; error?: string }[] } | undefined;
          const o = result?.outcomes?.[0];
          if (o?.verdict) {
            state.status = 'done';
            state.verdict = o.verdict;
            state.page = `course/${entry.name}.html`;
            if (o.error) state.error = o.error;
          } else {
            state.status = 'failed';
            state.error = `exit ${code}: ${stderr.trim().split('\n').slice(-5).join('\n')}`;
          }
        }
        this.onChange(state);
        resolve();
      });
    });
    this.onChange(state);
    return undefined;
  }

  /** Stops the entry running, if any, and everything it started; resolves when nothing is left. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child?.pid || !this.state) return this.exited;
    this.state.status = 'stopped';
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ }
    const timer = setTimeout(() => killTree(child.pid, COURSE_TAG, this.tag), GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

function lastJson(text: string): unknown {
  const line = text.trim().split('\n').pop() ?? '';
  try { return JSON.parse(line); } catch { return undefined; }
}
