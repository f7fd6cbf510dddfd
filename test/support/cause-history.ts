// Hand-built timed histories for the failure-cause rules: operations and faults at given
// milliseconds, turned into the events a run records (nemesis start/stop records included),
// then checked by the real checker, so a test states a story and gets the anomalies it shows.
import type { HistoryEvent } from '../../src/history/types.ts';
import type { Anomaly } from '../../checkers/types.ts';
import { checkHistory } from '../../checkers/index.ts';
import { toParsed } from './history.ts';

const ns = (ms: number) => Math.round(ms * 1e6);

export class Story {
  private readonly events: { t: number; n: number; e: HistoryEvent }[] = [];
  private n = 0;
  private readonly pids = new Map<string, number>();

  private add(ms: number, e: HistoryEvent): this {
    this.events.push({ t: ns(ms), n: this.n++, e: { ...e, time: ns(ms) } });
    return this;
  }

  private pid(client: string): number {
    if (!this.pids.has(client)) this.pids.set(client, this.pids.size + 1);
    return this.pids.get(client)!;
  }

  /** A client's operation from `from` to `to` ms: ok unless told (lease_ms, valid_ms, value as given). */
  op(client: string, f: 'acquire' | 'release' | 'renew', from: number, to: number, o: { outcome?: 'ok' | 'fail' | 'info'; lease?: number; valid?: number; value?: unknown; key?: string } = {}): this {
    const process = this.pid(client), key = o.key ?? 'k0';
    this.add(from, { type: 'invoke', f, process, key, client });
    return this.add(to, {
      type: o.outcome ?? 'ok', f, process, key, client,
      ...(o.lease !== undefined ? { lease_ms: o.lease } : {}), ...(o.valid !== undefined ? { valid_ms: o.valid } : {}), ...(o.value !== undefined ? { value: o.value } : {}),
    });
  }

  /** A fault of `kind` from `from` to `to` ms (undefined: not healed), its record's value as given ({ client: 'c1' }, { target: 'n1', params }). */
  fault(kind: string, from: number, to: number | undefined, value: Record<string, unknown>): this {
    const id = `f${this.n}`;
    this.add(from, { type: 'info', f: `${kind}-start`, process: 'nemesis', value: { id, ...value } });
    return to === undefined ? this : this.add(to, { type: 'info', f: `${kind}-stop`, process: 'nemesis', value: { id, ...value } });
  }

  /** The events in time order, and what the checker found in them. */
  run(model = 'mutex'): { events: HistoryEvent[]; check: { anomalies: Anomaly[] }; resource: { anomalies: Anomaly[] } } {
    const events = this.events.sort((a, b) => a.t - b.t || a.n - b.n).map((x) => x.e);
    const check = checkHistory(toParsed(events), { model, backend: 'redis' });
    return { events, check, resource: { anomalies: [] } };
  }
}
