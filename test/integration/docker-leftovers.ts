// What lockpick left on the Docker engine: containers (servers and their
// namespace holders) and networks labelled lockpick=1. Shared by the docker tests.
import { execFileSync } from 'node:child_process';

const docker = (...args: string[]): string[] => execFileSync('docker', args, { encoding: 'utf8' }).split('\n').filter(Boolean);

/** "name state" per labelled container, "network name" per labelled network. */
export function leftovers(): string[] {
  return [
    ...docker('ps', '-a', '--filter', 'label=lockpick=1', '--format', '{{.Names}} {{.State}}'),
    ...docker('network', 'ls', '--filter', 'label=lockpick=1', '--format', '{{.Name}}').map((n) => `network ${n}`),
  ];
}

/** Removes whatever is left (so one failing test does not fail the next) and returns what was there. */
export function removeLeftovers(): string[] {
  const left = leftovers();
  const containers = left.filter((l) => !l.startsWith('network ')).map((l) => l.split(' ')[0]!);
  const networks = left.filter((l) => l.startsWith('network ')).map((l) => l.slice('network '.length));
  if (containers.length) execFileSync('docker', ['rm', '-f', ...containers], { stdio: 'ignore' });
  if (networks.length) execFileSync('docker', ['network', 'rm', ...networks], { stdio: 'ignore' });
  return left;
}
