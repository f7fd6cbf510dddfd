// What the recipes whose lock lives in a server session share, whatever the driver
// (mysql-session.ts, pg-client.ts): one dedicated connection per hold, remembered
// by the Held, and an unlock on it that says 'lost' when the session had already
// ended (its lock went with it); the connection is closed after the unlock.
import { isDefiniteFailure, type Held } from './lock.ts';

/** A connection as these holds need it: whether it is known to be closed, and a way to close it at once. */
export interface SessionConn { closed: boolean; destroy(): void }

export class HoldConns<C extends SessionConn> {
  private next = 1;
  private readonly conns = new Map<number, C>();

  /** Remembers `c` as the connection of a new hold of `key` (`extra`: what else the Held carries). */
  hold(key: string, c: C, extra: Partial<Held> = {}): Held {
    const id = this.next++;
    this.conns.set(id, c);
    return { key, conn: id, ...extra };
  }

  connOf(h: Held): C | undefined {
    return this.conns.get(h.conn as number);
  }

  /**
   * Ends a hold with `unlock` on its connection: 'released' when it says so, 'lost' when the
   * session had already ended, or ended under the unlock (`ended(err, c)`: the driver's words
   * for that; a timeout of ours is not, its outcome stays unknown and the error is thrown).
   */
  async end(h: Held, unlock: (c: C) => Promise<boolean>, ended: (err: unknown, c: C) => boolean): Promise<'released' | 'lost'> {
    const c = this.conns.get(h.conn as number);
    this.conns.delete(h.conn as number);
    if (!c || c.closed) return 'lost';
    try {
      return (await unlock(c)) ? 'released' : 'lost';
    } catch (err) {
      if (isDefiniteFailure(err) || ended(err, c)) return 'lost';
      throw err;
    } finally {
      c.destroy();
    }
  }

  close(): void {
    for (const c of this.conns.values()) c.destroy();
    this.conns.clear();
  }
}
