// A user's string (a lock name, a fault kind, a counter) as a key of a plain object. Assignment
// with `__proto__` would replace the object's prototype and a read of `toString` would find
// Object.prototype's: these set and read own properties only, so every name is a key like any
// other and the object stays plain (JSON, deepEqual and the library's users see no difference).

export function setOwn<T>(o: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

export function getOwn<T>(o: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** Adds each counter of `add` to `into` by name. */
export function addCounts(into: Record<string, number>, add: Record<string, number>): void {
  for (const [k, n] of Object.entries(add)) setOwn(into, k, (getOwn(into, k) ?? 0) + n);
}
