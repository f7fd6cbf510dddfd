// What lockpick left on the Docker engine: containers (servers and their
// namespace holders) and networks labelled lockpick=1, and volumes that were not
// there before the test file started. Shared by the docker tests.
import { execFileSync } from 'node:child_process';

const docker = (...args: string[]): string[] => execFileSync('docker', args, { encoding: 'utf8' }).split('\n').filter(Boolean);

/** The engine's volumes when this module was loaded (before the file's tests): lockpick must add none. */
const volumesBefore = new Set(safeVolumes());
function safeVolumes(): string[] {
  try { return docker('volume', 'ls', '-q'); } catch { return []; }
}

/** "name state" per labelled container, "network name" per labelled network, "volume name" per volume made since. */
export function leftovers(): string[] {
  return [
    ...docker('ps', '-a', '--filter', 'label=lockpick=1', '--format', '{{.Names}} {{.State}}'),
    ...docker('network', 'ls', '--filter', 'label=lockpick=1', '--format', '{{.Name}}').map((n) => `network ${n}`),
    ...safeVolumes().filter((v) => !volumesBefore.has(v)).map((v) => `volume ${v}`),
  ];
}

/** Removes whatever is left (so one failing test does not fail the next) and returns what was there. */
export function removeLeftovers(): string[] {
  const left = leftovers();
  const of = (kind: string) => left.filter((l) => l.startsWith(`${kind} `)).map((l) => l.slice(kind.length + 1));
  const containers = left.filter((l) => !/^(network|volume) /.test(l)).map((l) => l.split(' ')[0]!);
  if (containers.length) execFileSync('docker', ['rm', '-f', ...containers], { stdio: 'ignore' });
  if (of('network').length) execFileSync('docker', ['network', 'rm', ...of('network')], { stdio: 'ignore' });
  if (of('volume').length) execFileSync('docker', ['volume', 'rm', ...of('volume')], { stdio: 'ignore' });
  return left;
}
