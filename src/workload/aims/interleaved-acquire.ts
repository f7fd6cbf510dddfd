// An interleaved acquire: a client stops between two commands of its own acquire (just before
// its k-th, k ≥ 2, among those a calibration run saw an acquire send) for a fraction of the
// lease, while a second client acquires, holds briefly and releases; then the first goes on. An
// acquire that reads and then writes in separate commands (a fencing counter read before the
// grant, a GET then a SET, an existence check then a create) acts on what it read before the
// other grant: the same token twice, or a lock taken over. One whose decisive step is a single
// atomic command gives the resumed client a fresh answer. The pause stays well inside the lease,
// so a grant made before it is still valid when the client goes on (no late grant).
import { leaseShare, pauseFirst, type Aim } from '../aim.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import { parseIoPoint } from '../plan.ts';

/**
 * The learned sends of an acquire after its first ('send:acquire:k', k ≥ 2) that every acquire of
 * a free lock reaches (the calibration's grantedAcquireSends): a polling acquire's retries are
 * reached only when it waits, and a pause that never fires tests nothing.
 */
function laterSends(o: WorkloadOptions): string[] {
  const reached = o.grantedAcquireSends ?? 0;
  return (o.points ?? []).filter((p) => { const io = parseIoPoint(p); return io?.kind === 'send' && io.op === 'acquire' && io.n >= 2 && io.n <= reached; });
}

export const interleavedAcquire: Aim = {
  name: 'interleaved-acquire',
  summary: 'a client stops between two commands of its acquire while a second client acquires, holds briefly and releases; then it goes on',
  kinds: ['client-pause'],
  applies: (o) => o.clients >= 2 && laterSends(o).length > 0,
  weight: 1,
  plan: (o) => {
    const ttl = o.ttlMs;
    return pauseFirst(o, laterSends(o), ttl, {
      d1: leaseShare(ttl, 0, 1 / 16),
      pause: leaseShare(ttl, 1 / 4, 1 / 2),
      come: leaseShare(ttl, 1 / 32, 1 / 8),
      h2: leaseShare(ttl, 1 / 16, 1 / 8),
      h1: leaseShare(ttl, 1 / 8, 1 / 4),
    });
  },
};
