// A client clock fault must reach every wall clock a lock can read, not only
// ctx.clock.wallMs: most locks call Date.now() or new Date(). Installed once in
// each client worker (a process of its own), it makes Date.now(), new Date(),
// Date() and performance.timeOrigin (+ performance.now(), a wall time) read the
// true time plus the current offset. Monotonic clocks stay true: performance.now()
// and process.hrtime measure intervals, which a wall-clock step does not change
// (like the server-side shim, native/clockshim.c, which moves CLOCK_REALTIME only).

export interface SkewedClock {
  /** The skew every wall clock of this process now reads, in ms (negative = behind). */
  setOffsetMs(ms: number): void;
  offsetMs(): number;
  /** True time + offset: what Date.now() reads once installed. */
  wallMs(): number;
  /** Puts the real Date and performance.timeOrigin back (tests). */
  uninstall(): void;
}

/**
 * Replaces globalThis.Date with a subclass whose argumentless construction and
 * now() read true time + offset; construction with arguments, Date.parse,
 * Date.UTC and `x instanceof Date` (also for Dates made before, or by Node
 * itself, from the real Date) work as before.
 */
export function installSkewedClock(g: typeof globalThis = globalThis): SkewedClock {
  const RealDate = g.Date;
  const realNow = () => RealDate.now();
  let offset = 0;
  const wallMs = () => realNow() + offset;

  class Date extends RealDate {
    constructor(...args: unknown[]) {
      // new Date(undefined) stays an Invalid Date, as with the real one: only no argument means "now".
      if (args.length === 0) super(wallMs());
      else super(...(args as [number]));   // any argument list; the cast only picks an overload for tsc
    }

    static override now(): number {
      return wallMs();
    }

    // Dates from the real constructor (made before, or by Node: fs.Stats, ...) are Dates too.
    static [Symbol.hasInstance](x: unknown): boolean {
      return x instanceof RealDate;
    }
  }
  // Called without `new`, Date() returns the current time as a string; a class cannot be called,
  // so a Proxy answers the call and passes everything else (construct, statics, prototype) through.
  const SkewedDate = new Proxy(Date, {
    apply: () => new RealDate(wallMs()).toString(),
  });
  Object.defineProperty(Date.prototype, 'constructor', { value: SkewedDate, writable: true, configurable: true });
  g.Date = SkewedDate as unknown as DateConstructor;

  // performance.timeOrigin + performance.now() is a wall time: move the origin, not now().
  const perf = g.performance;
  const realOrigin = perf.timeOrigin;
  Object.defineProperty(perf, 'timeOrigin', { get: () => realOrigin + offset, configurable: true, enumerable: true });

  return {
    setOffsetMs(ms: number) { offset = ms; },
    offsetMs: () => offset,
    wallMs,
    uninstall() {
      g.Date = RealDate;
      delete (perf as unknown as Record<string, unknown>).timeOrigin;   // the prototype's getter shows through again
    },
  };
}
