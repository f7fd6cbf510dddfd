// Starting nodes in parallel without losing track of the ones that did start
// when another fails (they must still be torn down).
export async function settleAll<T>(starts: Promise<T>[], keep: (t: T) => void): Promise<T[]> {
  const results = await Promise.allSettled(starts);
  const ok: T[] = [];
  for (const r of results) if (r.status === 'fulfilled') {
    keep(r.value);
    ok.push(r.value);
  }
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return ok;
}
