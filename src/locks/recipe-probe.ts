// Reads a user's lock module without running it in lockpick's process. The module's
// top-level code (which may replace setTimeout or JSON.parse, await forever, spawn
// children or run out of memory) runs in a disposable child process with a deadline
// (recipe-probe-child.ts); only the recipe's data comes back (recipe-data.ts), over IPC in
// V8's serialisation (no JSON the module could have patched). The client workers import the
// module themselves and build the Lock there, so the recipe here has no working `create`.
// A module that does not load, or whose top-level work does not end within the deadline, is
// a UsageError (exit 2) naming the module and what it did; a loader that cannot start under
// a memory cap is an InconclusiveError (exit 3): the module was never tried.
import { fork } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InconclusiveError, UsageError } from '../errors.ts';
import type { LockRecipe } from './lock.ts';
import { optionsKey, type RecipeData } from './recipe-data.ts';
import { recipeProblems } from './user-lock.ts';
import { killTree } from '../env/reap.ts';
import { newCgroup } from '../env/cgroup.ts';

const CHILD = fileURLToPath(new URL(`./recipe-probe-child${extname(import.meta.url)}`, import.meta.url));
const CHILD_ARGS = extname(CHILD) === '.ts' ? ['--import', import.meta.resolve('tsx')] : [];
/** How long a module's loading may take (tsx compiling a TypeScript module on a busy machine takes seconds). */
export const LOAD_DEADLINE_MS = 30_000;
/** Set on the probe (and whatever the module starts at load time): how its leftovers are found. */
const TAG_VAR = 'LOCKPICK_PROBE_TAG';
/** The last bytes of the child's output kept for an error message. */
const TAIL = 2000;

/** Words in a loader's dying output that mean memory, not the module, ran out. */
const NO_MEMORY = /ENOMEM|out of memory|Cannot allocate memory|failed to reserve|Fatal process out of memory|allocation failed|esbuild.*(service|stopped|exited)/i;

type Reply = { ok: true; recipe: RecipeData } | { ok: false; message: string };

function deadlineMs(): number {
  const env = Number(process.env.LOCKPICK_LOAD_TIMEOUT_MS);
  return Number.isInteger(env) && env > 0 ? env : LOAD_DEADLINE_MS;
}

/**
 * The recipe of the module at `file`, read in a child process. `optionSets`: the --lock-opt
 * sets whose sessionMs the run will ask for (evaluated in the child; another set is an error).
 */
export async function probeUserLock(file: string, label: string, optionSets: Array<Record<string, unknown> | undefined> = [{}]): Promise<LockRecipe> {
  const ms = deadlineMs();
  const tag = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const child = fork(CHILD, [file, JSON.stringify(optionSets)], {
    execArgv: CHILD_ARGS, serialization: 'advanced', stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true,
    env: { ...process.env, [TAG_VAR]: tag },
  });
  const cgroup = newCgroup(child.pid, 'probe');
  // lockpick ending while the module loads (a signal, an error) ends the loading too.
  const onExit = () => { killTree(child.pid, TAG_VAR, tag); cgroup?.kill(); };
  process.on('exit', onExit);
  let output = '';
  const keep = (b: Buffer) => { output = (output + b.toString('utf8')).slice(-TAIL); };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const outcome = await new Promise<{ reply?: Reply; code: number | null; signal: NodeJS.Signals | null; late?: boolean; error?: Error }>((resolve) => {
    let reply: Reply | undefined;
    const timer = setTimeout(() => { killTree(child.pid, TAG_VAR, tag); cgroup?.kill(); resolve({ code: null, signal: null, late: true }); }, ms);
    child.on('message', (m) => { reply ??= m as Reply; });
    child.on('error', (error) => { clearTimeout(timer); resolve({ code: null, signal: null, error }); });
    // 'exit' can come before the last of the child's output is read (a loaded machine): its words
    // (out of memory, an error) decide the message and the exit code, so wait for its pipes to
    // close, but not for long (something the module started may hold them; it is killed below).
    const closed = (s: NodeJS.ReadableStream) => new Promise<void>((r) => { if ((s as { closed?: boolean }).closed) r(); else s.once('close', () => r()); });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      void Promise.race([Promise.all([closed(child.stdout!), closed(child.stderr!)]), new Promise((r) => setTimeout(r, 1000))])
        .then(() => resolve({ reply, code, signal }));
    });
  });
  // Whatever the module started at load time ends with its loading.
  process.off('exit', onExit);
  onExit();
  const said = output.trim() ? `; its output ended with:\n${output.trim().split('\n').slice(-8).map((l) => `    ${l}`).join('\n')}` : '';
  const fail = (what: string) => new UsageError(`--lock ${label}: ${what}${said}`);
  if (outcome.error) throw new InconclusiveError(`--lock ${label}: could not start a process to load the module: ${outcome.error.message}`);
  if (outcome.late) throw fail(`its top-level code did not finish loading within ${ms / 1000} s (a top-level await that never settles, or work that never ends); lockpick stopped it`);
  const r = outcome.reply;
  if (!r) {
    if (NO_MEMORY.test(output)) throw new InconclusiveError(`--lock ${label}: the module loader could not start for lack of memory (a memory limit such as ulimit -v?); nothing was tested${said}`);
    if (outcome.code === 13) throw fail('its top-level await never settled (the module left nothing running that could settle it)');
    if (outcome.signal) throw fail(`loading it ended its process by signal ${outcome.signal}`);
    throw fail(`loading it ended its process with exit code ${outcome.code} before the recipe was read (process.exit at top level?)`);
  }
  if (!r.ok) {
    if (NO_MEMORY.test(r.message) || NO_MEMORY.test(output)) throw new InconclusiveError(`--lock ${label}: the module loader could not start for lack of memory (a memory limit such as ulimit -v?); nothing was tested: ${r.message}`);
    throw new UsageError(r.message);
  }
  return recipeOf(r.recipe, label);
}

/** The recipe lockpick's process uses: the data read, sessionMs answered from what was evaluated. */
function recipeOf(d: RecipeData, label: string): LockRecipe {
  const known = new Map(d.sessionMs ?? []);
  const recipe = {
    ...d.fields,
    create() { throw new Error(`${label}: a user lock's create() runs only in the client workers`); },
    ...(d.hasSessionMs ? {
      sessionMs(o: Record<string, unknown> | undefined): number {
        const ms = known.get(optionsKey(o));
        if (ms === undefined) throw new Error(`${label}: sessionMs asked for options ${optionsKey(o)} that were not read when the module loaded`);
        return ms;
      },
    } : {}),
  };
  // What came back is checked again here: a module cannot hand lockpick a shape it does not expect.
  const problems = recipeProblems(recipe);
  if (problems.length) throw new UsageError(`--lock ${label}: the recipe read from the module is not a LockRecipe:\n  - ${problems.join('\n  - ')}`);
  return recipe as unknown as LockRecipe;
}
