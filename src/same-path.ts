// Whether two paths name one file (symlinks and relative paths resolved): an --out that is
// an input would destroy what is being read.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

export function samePath(a: string, b: string): boolean {
  const real = (p: string) => { try { return realpathSync(p); } catch { return resolve(p); } };
  return real(a) === real(b);
}
