// Keys a history refuses in one JSON object, at any depth: a key given twice (JSON.parse silently
// keeps the last, other readers the first, so {"process": 1, "process": 2} means different things
// to different tools; HISTORY.md: one value per field), and "__proto__" (JavaScript code that
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
