// The order a stored schedule asks for (nemesis/order.ts), kept during one run: the client pool
// tells it every client event as it records it and every fault as it begins; a client step or a
// fault that waits for an event is held here until it has happened. A wait that cannot be met
// (the awaited client finished without it, every client is waiting, the run ended) is let go and
// written down as an `order-missed` nemesis record, so a replay that did not break the lock
// says which anchor it missed.
import { describeOrderEvent, isFaultEvent, type OrderEvent } from '../../nemesis/order.ts';

interface Waiter { ev: OrderEvent; who: string; client?: string; resolve: (at: number | undefined) => void }

export class OrderBook {
  /** When each client event happened (performance.now()), by `client op type`, in order. */
  private readonly times = new Map<string, number[]>();
  private readonly begun = new Map<number, number>();
  private waiters: Waiter[] = [];
  private readonly done = new Set<string>();
  /** The run's `order-missed` records (what a replay says when it did not break the lock). */
  readonly missed: string[] = [];

  /**
   * `record` writes a nemesis record; `faultKind` names a plan fault by index; `clients` are the
   * run's client ids; `pendingFaults` says how many ordered faults still wait for time only
   * (while one does, the clients are not stuck: it may yet begin).
   */
  constructor(
    private readonly record: (f: string, v: unknown) => void,
    private readonly faultKind: (i: number) => string | undefined,
    private readonly clients: readonly string[],
    private readonly pendingFaults: () => number = () => 0,
  ) {}

  /** A client event, as recorded: op invoked, or completed ok/fail (an unknown outcome is no event). */
  note(client: string, op: string, type: string): void {
    const k = `${client} ${op} ${type}`;
    const list = this.times.get(k);
    if (list) list.push(performance.now()); else this.times.set(k, [performance.now()]);
    this.wake();
  }

  /** The plan's fault `index` has begun. */
  noteFault(index: number): void {
    if (!this.begun.has(index)) this.begun.set(index, performance.now());
    this.wake();
  }

  /** When `ev` happened (performance.now()), or undefined while it has not. */
  seenAt(ev: OrderEvent): number | undefined {
    if (isFaultEvent(ev)) return this.begun.get(ev.fault);
    return this.times.get(`${ev.client} ${ev.op} ${ev.type}`)?.[ev.nth - 1];
  }

  seen(ev: OrderEvent): boolean {
    return this.seenAt(ev) !== undefined;
  }

  /** The event happened and its gap has passed. */
  ready(ev: OrderEvent): boolean {
    const at = this.seenAt(ev);
    return at !== undefined && performance.now() >= at + (ev.gap_ms ?? 0);
  }

  /**
   * Resolves with when `ev` happened, once it has (its gap is the waiter's to keep), or with
   * undefined when it cannot any more (then an `order-missed` record says so). `who` names the waiter in words; `client` is the waiting client, if one waits.
   */
  wait(ev: OrderEvent, who: string, client?: string): Promise<number | undefined> {
    if (this.seen(ev)) return Promise.resolve(this.seenAt(ev));
    return new Promise((resolve) => {
      this.waiters.push({ ev, who, ...(client ? { client } : {}), resolve });
      // Its client is done already: it never will.
      if (!isFaultEvent(ev) && this.done.has(ev.client)) this.letGo((w) => w.ev === ev, `${ev.client} finished its steps without it`);
      this.checkStuck();
    });
  }

  /** A client finished its steps: what waits for its events that have not happened never will. */
  finished(client: string): void {
    this.done.add(client);
    this.letGo((w) => !isFaultEvent(w.ev) && w.ev.client === client, `${client} finished its steps without it`);
    this.checkStuck();
  }

  /** The run is over: every waiter is let go (a fault still waiting never began). */
  end(): void {
    this.letGo(() => true, 'the run ended first');
  }

  private wake(): void {
    const ready = this.waiters.filter((w) => this.seen(w.ev));
    if (!ready.length) return;
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve(this.seenAt(w.ev));
  }

  /** Every client still running waits for an event and no fault may still begin: none can come. */
  private checkStuck(): void {
    const running = this.clients.filter((c) => !this.done.has(c));
    if (running.length === 0 || this.pendingFaults() > 0) return;
    if (running.every((c) => this.waiters.some((w) => w.client === c))) this.letGo((w) => w.client !== undefined, 'every client was waiting for another');
  }

  private letGo(which: (w: Waiter) => boolean, reason: string): void {
    const gone = this.waiters.filter((w) => which(w) && !this.seen(w.ev));
    if (!gone.length) return;
    this.waiters = this.waiters.filter((w) => !gone.includes(w));
    for (const w of gone) {
      const waitedFor = describeOrderEvent(w.ev, this.faultKind);
      this.missed.push(`${w.who} waited for ${waitedFor}, which never came (${reason})`);
      this.record('order-missed', { waiter: w.who, waited_for: waitedFor, reason });
      w.resolve(undefined);
    }
  }
}
