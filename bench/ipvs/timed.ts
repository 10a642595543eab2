// Splits a sync's wall time by the kernel handle it waited on: every async method of a handle is
// wrapped to add its wall time to one bucket. The proxier awaits its handles one after another
// (helper table, then IPVS, then addresses), so the buckets add up to less than the sync; what is
// left is the proxier's own planning in TypeScript.
export class TimeBuckets {
  private readonly ms = new Map<string, number>();

  add(bucket: string, ms: number): void {
    this.ms.set(bucket, (this.ms.get(bucket) ?? 0) + ms);
  }

  /** The buckets' totals since the last take (ms), and starts again from zero. */
  take(): Record<string, number> {
    const out = Object.fromEntries(this.ms);
    this.ms.clear();
    return out;
  }
}

/** `target` with each method's promise timed into `buckets` under `bucket`. */
export function timed<T extends object>(target: T, bucket: string, buckets: TimeBuckets): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== 'function' || prop === 'close') return value;
      return (...args: unknown[]) => {
        const t0 = performance.now();
        const out = value.apply(obj, args);
        if (!(out instanceof Promise)) { buckets.add(bucket, performance.now() - t0); return out; }
        return out.finally(() => buckets.add(bucket, performance.now() - t0));
      };
    },
  });
}
