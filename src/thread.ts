// Starts a worker thread on a module of lockpick's: the .js beside the caller in dist/, or, run
// from the sources, the .ts loaded through tsx's hooks registered in the thread first (a thread
// does not inherit the hooks of the one that starts it).
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import type { ResourceLimits, Worker } from 'node:worker_threads';

// Loaded when a thread starts: most checks start none, and loading it is ~2 ms of every start.
const require = createRequire(import.meta.url);
const workerClass = (): typeof Worker => (require('node:worker_threads') as typeof import('node:worker_threads')).Worker;

/** name: the module's file name without extension, beside `from` (the caller's import.meta.url). */
export function startThread(name: string, from: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  const url = new URL(`./${name}${extname(new URL(from).pathname)}`, from);
  const Worker = workerClass();
  if (extname(url.pathname) !== '.ts') return new Worker(url, { workerData, resourceLimits });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`, { eval: true, workerData, resourceLimits });
}
