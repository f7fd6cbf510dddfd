// Starts a worker thread on a module of lockpick's: the .js beside the caller in dist/, or, run
// from the sources, the .ts loaded through tsx's hooks registered in the thread first (a thread
// does not inherit the hooks of the one that starts it).
import { extname } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/** name: the module's file name without extension, beside `from` (the caller's import.meta.url). */
export function startThread(name: string, from: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  const url = new URL(`./${name}${extname(new URL(from).pathname)}`, from);
  if (extname(url.pathname) !== '.ts') return new Worker(url, { workerData, resourceLimits });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`, { eval: true, workerData, resourceLimits });
}
