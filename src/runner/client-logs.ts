// The clients' own output (a lock module's prints, a process client's standard error): one log file per client in the run
// dir, never lockpick's stdout/stderr. Named in the report and results.json when non-empty.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where the clients of the run whose history is `historyPath` write their output. */
export function clientLogDir(historyPath: string): string {
  return join(dirname(historyPath), 'clients');
}

/** The run dir's non-empty client logs, by path relative to it (clients/c1.log), as results.json names them. */
export function clientLogs(runDir: string): { file: string; bytes: number }[] {
  let names: string[];
  try { names = readdirSync(join(runDir, 'clients')).filter((n) => n.endsWith('.log')).sort(); } catch { return []; }
  return names.map((n) => ({ file: join('clients', n), bytes: sizeOf(join(runDir, 'clients', n)) })).filter((f) => f.bytes > 0);
}

function sizeOf(p: string): number {
  try { return statSync(p).size; } catch { return 0; }
}

/** "client output (what the lock's own code printed): DIR/clients/c1.log (12 KB), ..." for the non-empty client logs, or undefined. */
export function clientOutputNote(runDir: string): string | undefined {
  const full = clientLogs(runDir);
  if (full.length === 0) return undefined;
  const size = (b: number) => (b < 1024 ? `${b} B` : `${Math.ceil(b / 1024)} KB`);
  return `client output (what the lock's own code printed): ${full.map((f) => `${join(runDir, f.file)} (${size(f.bytes)})`).join(', ')}`;
}
