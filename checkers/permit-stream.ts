// The streaming check's key for the semaphore and rwlock models (checkers/stream.ts reads the
// file): the points of checkers/permit-sweep.ts fed as they become known, in the same order as the
// sweep of a whole history takes them, so the verdict and anomalies are the same.
import type { Op } from '../src/history/types.ts';
import type { Backend } from './types.ts';
import type { KeyVerdict } from './index.ts';
import { PointQueue } from './point-queue.ts';
import { PermitScanner, permitAnomalies, type PermitKind } from './permit-sweep.ts';
import { noSafetyAnomaly } from './anomaly-kinds.ts';
import type { Silences } from './silences.ts';

export class PermitKeyStream {
  ops = 0;
  private readonly points = new PointQueue();
  private readonly scan: PermitScanner;
  private readonly take = (op: Op): void => this.scan.feed(op);

  constructor(private readonly key: string, kind: PermitKind, silences: Silences) {
    this.scan = new PermitScanner(kind, silences);
  }

  invoke(op: Op): void {
    this.ops++;
    if (op.f === 'release' || op.f === 'renew') this.points.push(op);
  }

  /** An acquire of any outcome is a point at its completion (a refused or unanswered one for the permit leak). */
  complete(op: Op): void {
    if (op.f === 'acquire') this.points.push(op);
    this.points.drain(false, this.take);
  }

  finish(backend: Backend | undefined): KeyVerdict {
    this.points.drain(true, this.take);
    this.scan.finish();
    const anomalies = permitAnomalies(this.key, this.scan, backend);
    return { valid: noSafetyAnomaly(anomalies), anomalies };
  }
}
