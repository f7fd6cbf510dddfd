#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx (no build step), which also
// lets `--lock ./my-lock.ts` load a user's TypeScript module.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
