#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx (no build step), which also
// lets `--lock ./my-lock.ts` load a user's TypeScript module.
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
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/cli.ts');
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  internal(e);
}
