#!/usr/bin/env node
// Runs the prebuilt dist/ when it is fresh (an installed package; a checkout after
// `npm run build`), else the TypeScript sources through tsx (no build step). Under
// tsx, `import('tsx')` is what `--import tsx` runs in the client workers: both of
// tsx's hooks, ESM and CommonJS.
//
// Exit codes are a contract (README "Exit codes"): whatever goes wrong inside
// lockpick itself, here too (a failure to load, an uncaught exception, an
// unhandled rejection), exits 4, never 1 (unsafe) or 3 (inconclusive).
const INTERNAL = 4;

function internal(e) {
  try {
    process.stderr.write(`lockpick: internal error (a bug in lockpick, please report it): ${e?.stack ?? String(e)}\n`);
  } finally {
    process.exit(INTERNAL);
  }
}

// A reader that stops early (`lockpick list | head -1`) closes our stdout: that is
// no failure of lockpick, and the exit code stays the command's (the verdict).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e?.code !== 'EPIPE') internal(e);
  });
}
process.on('uncaughtException', internal);
process.on('unhandledRejection', internal);

try {
  // Every command runs from the prebuilt dist/ when it was compiled from exactly these sources
  // (bin/dist-fresh.mjs compares content hashes): no tsx at start (~0.3 s less per call), and
  // what an installed package does. A checkout with edited sources, LOCKPICK_NO_DIST=1, and
  // any doubt run the sources through tsx. (A user's .ts lock module loads tsx's hooks on its
  // own: src/locks/user-lock.ts.)
  const argv = process.argv.slice(2);
  let cli;
  if (process.env.LOCKPICK_NO_DIST !== '1' && (await import('./dist-fresh.mjs')).distFresh()) cli = '../dist/src/cli.js';
  else {
    await import('tsx');
    cli = '../src/cli.ts';
  }
  const { main } = await import(cli);
  process.exitCode = await main(argv);
} catch (e) {
  internal(e);
}
