// Simulates clients using a CORRECT lock service with leases and emits the history events
// (docs/history-format.md): random concurrency, several keys, fail and info outcomes, lost leases
// (release answered {"lost":true}), lapses ({"lapse":true} after a renew answered "not held"),
// crashed clients (info, then a fresh process id), optional fencing tokens, optional leases.
// Correct means: the server only grants a key whose owner no longer believes it holds it
// (its client released, lapsed or died), which is exactly "beliefs never overlap"; and, after a
// failed release (the client left its critical section but the server kept the lock), only once
// the owner's lease has run out (counted from its acquire's invoke, extended by renews).
// With `buggy`, some grants ignore that rule, giving random violations.
import type { HistoryEvent } from '../../src/history/types.ts';
import type { Choices } from './choices.ts';

export interface LockSimOptions {
  clients: number;
  keys: number;
  steps: number;
  /** ‰ of ops that end in info (before or after taking effect). */
  infoPerMille?: number;
  /** ‰ of releases that fail without taking effect (the client keeps the lock). */
  failPerMille?: number;
  /** acquire ok carries {"token": n}, n growing per key with every grant. */
  tokens?: boolean;
  /** ‰ of acquires granted even though the owner still believes it holds the key. */
  buggyPerMille?: number;
  /** ‰ of a holder's next ops that are renews (default 200); renews that die in info block the key for good. */
  renewPerMille?: number;
  /** ‰ of a holder's next ops that are lapses (default 100); 0 with no renews and no failed releases: no lease semantics at all. */
  lapsePerMille?: number;
  /** Stop once this many ops have been invoked (steps still caps the run). */
  maxOps?: number;
  /** Emit a nemesis event now and then (models ignore them). */
  nemesis?: boolean;
  /** Every acquire ok records this lease (lease_ms); the server may hand the key on once it ran out. */
  leaseMs?: number;
  /** ns between events (default 1000). */
  tickNs?: number;
}

type Phase = 'idle' | 'invoked' | 'applied';
interface Client {
  pid: number;
  phase: Phase;
  f: 'acquire' | 'release' | 'renew';
  key: string;
  result: 'granted' | 'busy' | 'released' | 'lost' | 'renewed' | 'not-held';
  token: number;
  holding: string | undefined; // the key this client holds (it believes so until it invokes a release)
  failing: boolean;            // the pending release will fail (the client keeps the lock)
  left: boolean;               // it invoked a release for its hold: out of its critical section
  invokedAt: number;           // time of its current op's invoke
  validUntil: number;          // ns: its own lease runs out by its own count, from its acquire's (or renew's) invoke
}
interface KeyState {
  owner: Client | undefined;
  ownerPid: number;
  tokens: number;
  /** The holder died in a renew (info): by docs/history-format.md it holds to the end, so nobody may be granted. */
  stuck: boolean;
  deadline: number;            // ns: the owner's lease runs out (Infinity: no lease)
}

export function simulateLock(o: LockSimOptions, ch: Choices, emit: (e: HistoryEvent) => void): void {
  const keys = Array.from({ length: o.keys }, (_, i) => `k${i}`);
  const server = new Map<string, KeyState>(keys.map((k) => [k, { owner: undefined, ownerPid: -1, tokens: 0, stuck: false, deadline: Infinity }]));
  const clients: Client[] = Array.from({ length: o.clients }, (_, i) => ({
    pid: i, phase: 'idle', f: 'acquire', key: keys[0]!, result: 'busy', token: 0, holding: undefined, failing: false, left: false, invokedAt: 0, validUntil: Infinity,
  }));
  const lease = o.leaseMs === undefined ? undefined : o.leaseMs * 1e6;
  const tick = o.tickNs ?? 1000;
  let nextPid = o.clients;
  let time = 0;
  let invokes = 0;
  const maxOps = o.maxOps ?? Infinity;
  const info = o.infoPerMille ?? 0, fail = o.failPerMille ?? 0;
  const ev = (type: HistoryEvent['type'], c: Client, value?: unknown) => {
    const e: HistoryEvent = { type, f: c.f, process: c.pid, key: c.key, time: (time += tick) };
    if (type === 'invoke') { invokes++; c.invokedAt = time; }
    if (value !== undefined) e.value = value;
    if (type === 'ok' && c.f === 'acquire' && o.leaseMs !== undefined) e.lease_ms = o.leaseMs;
    emit(e);
  };
  /** The owner's client still believes it holds the key (or is about to): granting now makes two holders. */
  const believed = (s: KeyState, key: string) => {
    if (s.stuck) return true;
    const c = s.owner;
    if (!c || c.pid !== s.ownerPid) return false; // the owner's client died (info): its lease just runs out
    return c.holding === key || (c.f === 'acquire' && c.key === key && c.phase === 'applied');
  };
  /** The owner left its critical section (a release that failed, or is under way) and its lease ran out. */
  const leaseRanOut = (s: KeyState) => s.owner !== undefined && s.owner.pid === s.ownerPid && s.owner.left && !s.stuck && time >= s.deadline;
  const retire = (c: Client) => {
    if (c.f === 'renew' && c.holding !== undefined) server.get(c.holding)!.stuck = true;
    c.pid = nextPid++; c.phase = 'idle'; c.holding = undefined;
  };

  for (let step = 0; step < o.steps && invokes < maxOps; step++) {
    if (o.nemesis && ch.chance(5)) emit({ type: 'info', f: ch.chance(500) ? 'partition-start' : 'partition-stop', process: 'nemesis', time: (time += 1000) });
    const c = clients[ch.int(clients.length)]!;
    if (c.phase === 'idle') {
      if (c.holding === undefined) { c.f = 'acquire'; c.key = keys[ch.int(keys.length)]!; }
      else {
        c.key = c.holding;
        // Lapse: the client's own clock says its lease ran out; it stops believing at once. A
        // correct client does so at the latest when its lease is over: a release or renew invoked
        // past it acts as a holder it no longer is (an exposure, checkers/holds.ts).
        const lapse = ch.chance(o.lapsePerMille ?? 100);
        if (lapse || time + tick >= c.validUntil) {
          c.f = 'release'; c.holding = undefined;
          ev('invoke', c); ev('ok', c, { lapse: true });
          continue;
        }
        c.f = ch.chance(o.renewPerMille ?? 200) ? 'renew' : 'release';
        // A certain hold ends at the invoke of a release that does not fail; the fate is drawn now.
        c.failing = c.f === 'release' && ch.chance(fail);
        if (c.f === 'release' && !c.failing) c.holding = undefined;
        if (c.f === 'release') c.left = true;
      }
      ev('invoke', c);
      c.phase = 'invoked';
    } else if (c.phase === 'invoked') {
      if (ch.chance(info)) { ev('info', c); retire(c); continue; }       // timed out, never reached the server
      if (c.f === 'release' && c.failing) { ev('fail', c); c.phase = 'idle'; continue; }
      const s = server.get(c.key)!;
      if (c.f === 'acquire') {
        if (!believed(s, c.key) || leaseRanOut(s) || ch.chance(o.buggyPerMille ?? 0)) {
          s.owner = c; s.ownerPid = c.pid; c.token = ++s.tokens; c.result = 'granted'; c.left = false;
          s.deadline = lease === undefined ? Infinity : c.invokedAt + lease;
        } else c.result = 'busy';
      } else if (c.f === 'release') {
        if (s.ownerPid === c.pid) { s.owner = undefined; s.ownerPid = -1; c.result = 'released'; } else c.result = 'lost';
      } else {
        // A renew is answered "not held" when the server already gave the key away, or now and then
        // because the lease ran out at the server (nobody else can have it yet: the client still believes).
        c.result = s.ownerPid === c.pid && !ch.chance(50) ? 'renewed' : 'not-held';
        if (c.result === 'renewed' && lease !== undefined) s.deadline = Math.max(s.deadline, c.invokedAt + lease);
      }
      c.phase = 'applied';
    } else {
      c.phase = 'idle';
      if (ch.chance(info)) { ev('info', c); retire(c); continue; }        // took effect, answer lost
      if (c.f === 'acquire') {
        if (c.result === 'granted') { c.holding = c.key; c.validUntil = lease === undefined ? Infinity : c.invokedAt + lease; ev('ok', c, o.tokens ? { token: c.token } : undefined); }
        else ev('fail', c);
      } else if (c.f === 'release') ev('ok', c, c.result === 'lost' ? { lost: true } : undefined);
      else if (c.result === 'renewed') { if (lease !== undefined) c.validUntil = Math.max(c.validUntil, c.invokedAt + lease); ev('ok', c); }
      else {
        ev('fail', c);
        const s = server.get(c.key)!;
        if (s.ownerPid === c.pid) { s.owner = undefined; s.ownerPid = -1; } // the server's lease ran out
        c.f = 'release'; c.holding = undefined;
        ev('invoke', c); ev('ok', c, { lapse: true });
      }
    }
  }
}
