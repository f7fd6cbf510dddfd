// Where the topology registry leaves the backends' words for the checker (checkers/backends.ts),
// which loads the registry only when a check needs them. Imports nothing, so neither side imports
// the other through it in a circle.
import type { BackendWords } from './topology.ts';

export interface Backends { names(): string[]; words(backend: string): BackendWords | undefined }

let installed: Backends | undefined;

/** Called by src/env/topologies.ts as it loads. */
export function installBackends(b: Backends): void {
  installed = b;
}

/** The registry's backends once it has loaded, else undefined. */
export function installedBackends(): Backends | undefined {
  return installed;
}
