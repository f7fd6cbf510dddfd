// The disposable process that reads a user's lock module for lockpick (src/locks/recipe-probe.ts):
// it imports the module (its top-level code runs here, never in lockpick's own process), picks
// the recipe out as a client worker would, and sends back the recipe's data. Functions stay
// behind: a client worker builds the Lock; sessionMs is evaluated here for the options asked.
import { loadUserLock } from './user-lock.ts';
import { recipeData } from './recipe-data.ts';

// Kept before the module runs: a module may replace globals (JSON, process.send, timers).
const send = process.send!.bind(process);
const exit = process.exit.bind(process);
const [file = '', optionsJson = '[]'] = process.argv.slice(2);

// tsx's hooks run on Node's loader thread: an error there (its WebAssembly out of memory under a
// cap such as ulimit -v) ends this process with 1 and no message. Said here (stderr to the parent
// is a pipe: written at once) so the parent can tell a loader that could not run from a module
// that exited (src/locks/recipe-probe.ts reads these words).
let answered = false;
process.on('exit', (code) => {
  if (answered || code !== 1 || !String(new Error().stack).includes('node:internal/worker')) return;
  try { process.stderr.write('the TypeScript loader (tsx) ended the process before the module was read: out of memory? (a memory limit such as ulimit -v: it compiles through WebAssembly)\n'); } catch { /* gone */ }
});

function reply(msg: unknown): void {
  answered = true;
  send(msg, undefined, {}, () => exit(0));
}

try {
  const optionSets = JSON.parse(optionsJson) as Array<Record<string, unknown> | undefined>;
  const recipe = await loadUserLock(file);
  reply({ ok: true, recipe: recipeData(recipe, optionSets) });
} catch (e) {
  reply({ ok: false, message: (e as Error)?.message ?? String(e) });
}
