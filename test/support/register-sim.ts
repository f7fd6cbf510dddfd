// Simulates clients of a CORRECT (linearizable) register or cas-register: each op takes effect
// at one instant between its invoke and completion; info ops may or may not have taken effect.
import type { HistoryEvent } from '../../src/history/types.ts';
import type { Choices } from './choices.ts';

export interface RegisterSimOptions { clients: number; keys: number; steps: number; cas: boolean; infoPerMille?: number }

interface Client { pid: number; phase: 'idle' | 'invoked' | 'applied'; f: string; key: string; arg: unknown; result: unknown; ok: boolean }

export function simulateRegister(o: RegisterSimOptions, ch: Choices, emit: (e: HistoryEvent) => void): void {
  const keys = Array.from({ length: o.keys }, (_, i) => `r${i}`);
  const value = new Map<string, unknown>(keys.map((k) => [k, null]));
  const clients: Client[] = Array.from({ length: o.clients }, (_, i) => ({ pid: i, phase: 'idle', f: 'read', key: keys[0]!, arg: undefined, result: undefined, ok: true }));
  let nextPid = o.clients;
  const info = o.infoPerMille ?? 0;
  const ev = (type: HistoryEvent['type'], c: Client, v: unknown) => {
    const e: HistoryEvent = { type, f: c.f, process: c.pid, key: c.key };
    if (v !== undefined) e.value = v;
    emit(e);
  };
  const small = () => ch.int(4); // few values, so reads and cas often collide
  for (let step = 0; step < o.steps; step++) {
    const c = clients[ch.int(clients.length)]!;
    if (c.phase === 'idle') {
      c.key = keys[ch.int(keys.length)]!;
      const r = ch.int(o.cas ? 3 : 2);
      c.f = r === 0 ? 'read' : r === 1 ? 'write' : 'cas';
      c.arg = c.f === 'write' ? small() : c.f === 'cas' ? [ch.chance(300) ? null : small(), small()] : undefined;
      ev('invoke', c, c.arg);
      c.phase = 'invoked';
    } else if (c.phase === 'invoked') {
      if (ch.chance(info)) { ev('info', c, c.arg); c.pid = nextPid++; c.phase = 'idle'; continue; }
      const cur = value.get(c.key);
      if (c.f === 'read') { c.result = cur; c.ok = true; }
      else if (c.f === 'write') { value.set(c.key, c.arg); c.ok = true; }
      else {
        const [a, b] = c.arg as [unknown, unknown];
        c.ok = a === cur;
        if (c.ok) value.set(c.key, b);
      }
      c.phase = 'applied';
    } else {
      c.phase = 'idle';
      if (ch.chance(info)) { ev('info', c, c.arg); c.pid = nextPid++; continue; }
      ev(c.ok ? 'ok' : 'fail', c, c.f === 'read' ? c.result : c.arg);
    }
  }
}
