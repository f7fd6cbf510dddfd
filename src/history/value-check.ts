// Events handed over as objects (the library's checkHistory(events)) skip the readers, which
// refuse a "__proto__" key and values nested past MAX_VALUE_DEPTH; this walks an event the same
// way, without recursion, so an object cannot bring in what a file cannot (a cycle included).
import { HistoryError } from './errors.ts';
import { MAX_VALUE_DEPTH, protoKey, tooDeep } from './limits.ts';

/** Throws the reader's HistoryError for an event (object) the readers would refuse; `base`: how deep `ev` sits in its event. */
export function checkEventObject(source: string, line: number, ev: unknown, base = 0): void {
  if (ev === null || typeof ev !== 'object') return; // the builder names a non-object
  if (flat(ev)) return; // the usual event or value ({token: 3}): nothing nested to walk
  const onPath = new Set<object>();
  const done = new Set<object>();
  // Each frame: an object and its children still to visit.
  const stack: { o: object; kids: unknown[] }[] = [];
  const enter = (o: object): void => {
    if (Object.hasOwn(o, '__proto__')) throw protoKey(source, line, 'json');
    if (onPath.has(o)) throw new HistoryError(source, line, 'cyclic-value', 'a value of this event contains itself (a cycle)', 'give plain data: each value once, no references back');
    if (stack.length + base > MAX_VALUE_DEPTH) throw tooDeep(source, line);
    onPath.add(o);
    stack.push({ o, kids: Object.values(o) });
  };
  enter(ev);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const kid = top.kids.pop();
    if (kid === undefined && top.kids.length === 0) {
      stack.pop(); onPath.delete(top.o); done.add(top.o);
      continue;
    }
    if (kid !== null && typeof kid === 'object' && !done.has(kid)) enter(kid);
  }
}

/** No `__proto__` key and no nested object. */
function flat(o: object): boolean {
  for (const k in o) {
    const v = (o as Record<string, unknown>)[k];
    if (k === '__proto__' || (v !== null && typeof v === 'object')) return false;
  }
  return !Object.hasOwn(o, '__proto__'); // (not enumerable: for-in does not show it)
}
