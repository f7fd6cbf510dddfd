// The lock services' words the checker explains stale unlocks in, and the backend names a
// run-start record may carry, come from the topology registry (src/env/topologies.ts). That
// registry brings every topology's server code with it (child processes, sockets, images):
// ~30 ms of a `lockpick check` start, for words only a history recorded by `lockpick run` (its
// run-start names the backend) or `--backend` asks for. So the registry installs itself in
// src/env/backend-hook.ts when it loads, and the asynchronous entries of a check load it first when it is needed
// (loadBackends: checkers/threads.ts, stream.ts, keys-worker.ts, the check and report commands).
import type { BackendWords } from '../src/env/topology.ts';
import { installedBackends, type Backends } from '../src/env/backend-hook.ts';

/** Loads the topology registry, once. */
export async function loadBackends(): Promise<void> {
  if (!installedBackends()) await import('../src/env/topologies.ts');
}

/** Whether the topology registry has loaded (a check may then use its words at no cost). */
export function backendsLoaded(): boolean {
  return installedBackends() !== undefined;
}

function registry(): Backends {
  // A path that checks a history naming a backend without loadBackends() first: a bug of lockpick.
  const installed = installedBackends();
  if (!installed) throw new Error('the topology registry was not loaded before a check that names a backend (await loadBackends() first)');
  return installed;
}

/** Every backend word a registered topology declares. */
export function backendNames(): string[] {
  return registry().names();
}

/** The checker's words for `backend` (none for no backend: the registry is not needed then). */
export function backendWords(backend: string | undefined): BackendWords | undefined {
  return backend === undefined ? undefined : registry().words(backend);
}
