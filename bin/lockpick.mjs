#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx (no build step; dist/ is the
// library that `import ... from 'lockpick'` loads). Both of tsx's hooks are
// registered, ESM and CommonJS, so whatever a user's lock module is (.ts in a
// CommonJS package, .cjs, .mts, ...) and whatever it requires loads here as it
// does in the client workers (forked with `--import tsx`, the same two hooks).
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
  const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  esm.register();
  cjs.register();
  const { main } = await import('../src/cli.ts');
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  internal(e);
}
