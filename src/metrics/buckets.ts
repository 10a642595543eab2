// Histogram buckets as component-base builds them.

export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * Math.pow(factor, i));
}

export function linearBuckets(start: number, width: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start + width * i);
}

/** component-base's MergeBuckets: starts from a 0 bucket, then appends each list. */
export function mergeBuckets(...lists: number[][]): number[] {
  return [0, ...lists.flat()];
}

/** 0.001 s doubling to about 16 s (15 buckets): every sync-duration histogram. */
export const SYNC_BUCKETS = exponentialBuckets(0.001, 2, 15);

/** 0.25 s to 5 min: network programming latency. */
export const NETWORK_PROGRAMMING_BUCKETS = mergeBuckets(
  linearBuckets(0.25, 0.25, 2),
  linearBuckets(1, 1, 59),
  linearBuckets(60, 5, 12),
  linearBuckets(120, 30, 7),
);
