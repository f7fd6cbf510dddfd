// One clock every lockpick process shares: CLOCK_MONOTONIC (process.hrtime is libuv's uv_hrtime,
// read from that clock), so a time one process took means the same to another (a worker's
// completion, stamped later by the parent's recorder; a process client's validUntilMs).

/** CLOCK_MONOTONIC in ms. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
