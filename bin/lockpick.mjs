#!/usr/bin/env node
// Runs the prebuilt dist/ when it is fresh (an installed package; a checkout after
// `npm run build`), else the TypeScript sources through tsx (no build step). Under
// tsx, `import('tsx')` is what `--import tsx` runs in the client workers: both of
// tsx's hooks, ESM and CommonJS.
//
// Exit codes are a contract (README "Exit codes"): whatever goes wrong inside
// lockpick itself, here too (a failure to load, an uncaught exception, an
// unhandled rejection), exits 4, never 1 (unsafe) or 3 (inconclusive).
// Signals from the first line, before tsx or any command loads (README "Exit codes"): Ctrl-C
// is 130; SIGTERM or SIGHUP stop a standing service (env up, proxy) as asked, 0, and end any
// other command without a verdict, 3. A command that handles a signal itself (a run stores what
// it found, and says 1 when it had found a violation; an environment tears its servers down)
// adds its own listener, and this one then stands aside.
const ARGV = process.argv.slice(2);
const STANDING = ARGV[0] === 'proxy' || (ARGV[0] === 'env' && ARGV.includes('up'));
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, function early() {
    if (process.listeners(sig).some((l) => l !== early)) return;
    process.exit(sig === 'SIGINT' ? 130 : STANDING ? 0 : 3);
  });
}

// Started by another lockpick that may die without stopping us (serve's course run, when serve is
// SIGKILLed): with LOCKPICK_STOP_WITH_PARENT=1 and an IPC channel, the channel's close is a
// SIGTERM, which stops the command as any SIGTERM does (a run tears its servers down). The
// channel is unref'd: it keeps nothing alive. Not passed on to what this process starts.
if (process.env.LOCKPICK_STOP_WITH_PARENT === '1') {
  delete process.env.LOCKPICK_STOP_WITH_PARENT;
  if (process.channel) {
    process.channel.unref();
    process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  }
}

const INTERNAL = 4;
const INCONCLUSIVE = 3;
// Memory that could not be had (a cap such as `ulimit -v`: tsx's WebAssembly, a heap) is no bug
// of lockpick and no verdict: exit 3 saying so (the same words as src/errors.ts outOfMemory).
const NO_MEMORY = /out of memory|Cannot allocate (Wasm )?memory|ENOMEM|allocation failed/i;

function internal(e) {
  const memory = NO_MEMORY.test(String(e?.message ?? e));
  try {
    if (memory) process.stderr.write(`lockpick: out of memory (a memory limit such as ulimit -v?); nothing was tested: ${e?.message ?? String(e)}\n`);
    else process.stderr.write(`lockpick: internal error (a bug in lockpick, please report it): ${e?.stack ?? String(e)}\n`);
  } finally {
    process.exit(memory ? INCONCLUSIVE : INTERNAL);
  }
}

// A reader that stops early (`lockpick list | head -1`) closes our stdout: that is
// no failure of lockpick, and the exit code stays the command's (the verdict). Any other
// failure of stdout or stderr is kept, the command finishes (its results.json is written),
// and then the exit code says it (the same classes as src/output.ts): a full disk → 3,
// a redirection that cannot be written → 2; never "internal error" for the user's device.
const DISK = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EFBIG']);
const PATH = new Set(['EROFS', 'EACCES', 'EPERM', 'EBADF', 'ENXIO', 'EISDIR', 'ENOENT']);
let streamFailure;
for (const [name, stream] of [['standard output', process.stdout], ['standard error', process.stderr]]) {
  stream.on('error', (e) => {
    if (e?.code !== 'EPIPE') streamFailure ??= { name, e };
  });
}

/** The command's exit code once its output failed: a verdict (0, 1) cannot stand undelivered. */
function afterStreamFailure(code) {
  const { name, e } = streamFailure;
  const kind = DISK.has(e?.code) ? INCONCLUSIVE : PATH.has(e?.code) ? 2 : INTERNAL;
  if (kind === INTERNAL) {
    process.stderr.write(`lockpick: internal error (a bug in lockpick, please report it): ${e?.stack ?? String(e)}\n`);
    return INTERNAL;
  }
  try {
    process.stderr.write(`lockpick: cannot write to ${name}: ${e?.message ?? e}${kind === INCONCLUSIVE ? '; what it printed there is lost (a run keeps its verdict in its run directory: results.json)' : ''}\n`);
  } catch { /* stderr itself is what failed */ }
  return code === 0 || code === 1 ? kind : code;
}
// A failed write is reported a tick after it: judged at exit (a signal's too), when every write has settled.
process.on('exit', () => { if (streamFailure) process.exitCode = afterStreamFailure(process.exitCode ?? 0); });
// tsx's module hooks run on a loader thread; an error there (WebAssembly out of memory under a
// cap such as ulimit -v) makes Node end the whole process with 1, unseen by the handlers below
// and before the command has answered. 1 means UNSAFE: say what happened and exit 3 instead.
let answered = false;
process.on('exit', (code) => {
  if (answered || code !== 1 || !String(new Error().stack).includes('node:internal/worker')) return;
  try { process.stderr.write('lockpick: the TypeScript loader (tsx) ended the process before lockpick could answer (often a memory limit such as ulimit -v: it compiles through WebAssembly, and out of memory it stops without a message); nothing was tested\n'); } catch { /* stderr itself is gone */ }
  process.exitCode = INCONCLUSIVE;
});
process.on('uncaughtException', internal);
process.on('unhandledRejection', internal);

try {
  // Every command runs from the prebuilt dist/ when it was compiled from exactly these sources
  // (bin/dist-fresh.mjs: the sources' content as compiled): no tsx at start (~0.3 s less per call), and
  // what an installed package does. A checkout with edited sources, LOCKPICK_NO_DIST=1, and
  // any doubt run the sources through tsx. (A user's .ts lock module loads tsx's hooks on its
  // own: src/locks/user-lock.ts.)
  const argv = ARGV;
  let cli;
  if (process.env.LOCKPICK_NO_DIST !== '1' && (await import('./dist-fresh.mjs')).distFresh()) cli = '../dist/src/cli.js';
  else {
    await import('tsx');
    cli = '../src/cli.ts';
  }
  const { main } = await import(cli);
  process.exitCode = await main(argv);
  answered = true;
} catch (e) {
  internal(e);
}
