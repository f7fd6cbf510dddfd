// The verdict a public-corpus entry (../support/corpus.ts) expects under lockpick's contract. The corpus records
// Knossos's verdicts, and Knossos calls a history with no operations valid; lockpick gives no
// verdict for it ('unknown', "no operations": nothing was tested), so such an entry expects that.
import type { ParsedHistory } from '../../src/history/types.ts';

export function expectedVerdict(valid: boolean, h: Pick<ParsedHistory, 'ops'>): boolean | 'unknown' {
  return valid && h.ops.length === 0 ? 'unknown' : valid;
}
