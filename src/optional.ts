// lockpick's optional dependencies: packages only some runs need, loaded on first
// use, so a Redis user installs lockpick without a C++ compiler (the `zookeeper`
// addon is built by node-gyp at install) and without Docker's client
// (`testcontainers`, ~170 packages). A run that needs a missing one is
// inconclusive (exit 3: no test was possible) and says the install line.
import { createRequire } from 'node:module';
import { InconclusiveError } from './errors.ts';

/** Each optional dependency (package.json "optionalDependencies") and what needs it, for the message. */
export const OPTIONAL_PACKAGES: Record<string, string> = {
  zookeeper: "the ZooKeeper lock recipes (the Apache C client as a Node addon; building it needs g++, make and python3)",
  testcontainers: '--env docker (the Docker engine client)',
};

const requireHere = createRequire(import.meta.url);

/** A missing optional package, in words with the fix (exit 3). */
export class MissingPackageError extends InconclusiveError {}

function missing(name: string, err: unknown): MissingPackageError {
  const why = OPTIONAL_PACKAGES[name] ?? 'this run';
  const e = err as NodeJS.ErrnoException;
  const notInstalled = (e?.code === 'MODULE_NOT_FOUND' || e?.code === 'ERR_MODULE_NOT_FOUND') && String(e.message).includes(`'${name}'`);
  const first = String(e?.message ?? err).split('\n')[0];
  return new MissingPackageError(notInstalled
    ? `the optional package '${name}' is not installed; ${why} needs it: run \`npm install ${name}\` in your project (lockpick installs without it where it cannot be built)`
    : `the optional package '${name}' is installed but does not load (${first}); ${why} needs it: run \`npm rebuild ${name}\`, or \`npm install ${name}\` again`,
  { cause: err });
}

/** require() an optional CommonJS package (the zookeeper addon), or throw MissingPackageError with the install line. */
export function requireOptional<T>(name: string): T {
  try {
    return requireHere(name) as T;
  } catch (err) {
    throw missing(name, err);
  }
}

/** import() an optional package, or throw MissingPackageError with the install line. */
export async function importOptional<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    throw missing(name, err);
  }
}

/** Loads each package a recipe declares (LockRecipe.packages) before any server starts: a missing one ends the run at once (exit 3). */
export function checkPackages(names: readonly string[] | undefined): void {
  for (const n of names ?? []) requireOptional(n);
}
