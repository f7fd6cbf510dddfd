// Keys a history refuses in one JSON object, at any depth: a key given twice (JSON.parse silently
// keeps the last, other readers the first, so {"process": 1, "process": 2} means different things
// to different tools; docs/history-format.md: one value per field), and "__proto__" (JavaScript code that
// copies the event with assignment makes it the copy's prototype, so fields appear or vanish).
// Also how deep the line's values nest (bounded: ./limits.ts MAX_VALUE_DEPTH).
import { MAX_VALUE_DEPTH } from './limits.ts';

export type KeyProblem = { rule: 'duplicate-key' | 'proto-key'; key: string } | { rule: 'too-deep' };

/** The first refused key (or too deep a nesting) in `text` (which JSON.parse accepted), else undefined; `text` sits `base` levels deep in its line. */
export function keyProblem(text: string, base = 0): KeyProblem | undefined {
  const stack: (Set<string> | null)[] = []; // a Set per open object, null per open array
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let j = i + 1;
      let escaped = false;
      for (let d = text.charCodeAt(j); d !== 34; d = text.charCodeAt(j)) {
        if (d === 92 /* \ */) { escaped = true; j += 2; } else j++;
      }
      const top = stack[stack.length - 1];
      if (top && expectKey) {
        const key = escaped ? JSON.parse(text.slice(i, j + 1)) as string : text.slice(i + 1, j);
        if (key === '__proto__') return { rule: 'proto-key', key };
        if (top.has(key)) return { rule: 'duplicate-key', key };
        top.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      // The event's own object is depth 0: its values may nest MAX_VALUE_DEPTH deep.
      if (stack.length + base > MAX_VALUE_DEPTH) return { rule: 'too-deep' };
      if (c === 123) { stack.push(new Set()); expectKey = true; } else { stack.push(null); expectKey = false; }
    }
    else if (c === 125 /* } */ || c === 93 /* ] */) stack.pop();
    else if (c === 44 /* , */) expectKey = stack[stack.length - 1] != null;
  }
  return undefined;
}

/**
 * keyProblem(text) for a text JSON.parse read as `parsed`, without walking its characters when it
 * has none: every key of the text is followed by its own colon (a string value may hold more), so
 * when the colons are as many as the keys `parsed` kept, no key was given twice; and a walk of
 * `parsed` sees "__proto__" and the depth. Anything else goes to keyProblem for its exact answer.
 */
export function keyProblemParsed(text: string, parsed: unknown): KeyProblem | undefined {
  const keys = keysIn(parsed, 0);
  if (keys >= 0) {
    let colons = 0;
    for (let i = text.indexOf(':'); i !== -1 && colons <= keys; i = text.indexOf(':', i + 1)) colons++;
    if (colons === keys) return undefined;
  }
  return keyProblem(text);
}

/** The keys of every object in v (v's own included), or -1 at a "__proto__" key or a value nested past MAX_VALUE_DEPTH. */
function keysIn(v: unknown, depth: number): number {
  if (v === null || typeof v !== 'object') return 0;
  if (depth > MAX_VALUE_DEPTH) return -1;
  let n = 0;
  if (Array.isArray(v)) {
    for (const x of v) { const k = keysIn(x, depth + 1); if (k < 0) return -1; n += k; }
    return n;
  }
  for (const key of Object.keys(v)) {
    if (key === '__proto__') return -1;
    const k = keysIn((v as Record<string, unknown>)[key], depth + 1);
    if (k < 0) return -1;
    n += 1 + k;
  }
  return n;
}
