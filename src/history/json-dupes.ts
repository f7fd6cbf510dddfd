// Duplicate keys in one JSON object: JSON.parse silently keeps the last, other readers the first,
// so a line such as {"process": 1, "process": 2} means different things to different tools.
// A history refuses it (HISTORY.md: one value per field), naming the key.

/** The first key that appears twice in one object of `text` (which JSON.parse accepted), else undefined. */
export function duplicateKey(text: string): string | undefined {
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
        if (top.has(key)) return key;
        top.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === 123 /* { */) { stack.push(new Set()); expectKey = true; }
    else if (c === 91 /* [ */) { stack.push(null); expectKey = false; }
    else if (c === 125 /* } */ || c === 93 /* ] */) stack.pop();
    else if (c === 44 /* , */) expectKey = stack[stack.length - 1] != null;
  }
  return undefined;
}
