// Docker tests run only where a Docker engine answers; elsewhere they are
// skipped, saying so (CI does not start dockerd; LOCKPICK_DOCKER_TESTS=1 bash scripts/setup.sh does).
import { execFileSync } from 'node:child_process';

function engineAnswers(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** The `skip` option of a docker test file: false with an engine, else the reason (printed once, under `file`'s name). */
export function dockerSkip(file: string): false | string {
  if (engineAnswers()) return false;
  const why = 'no Docker engine answers (`docker info` fails): start dockerd (LOCKPICK_DOCKER_TESTS=1 bash scripts/setup.sh) or set DOCKER_HOST';
  console.log(`# ${file}: skipped: ${why}`);
  return why;
}
