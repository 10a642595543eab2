// Order statistics for the benches' figures (nearest rank: every value reported was measured).

/** The p-th percentile, nearest rank (p in 0..100); NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

/** The median: the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * A distribution-free confidence interval for the median (order statistics, the sign test's
 * binomial): [the k-th smallest, the k-th largest] for the largest k whose two tails together hold
 * at most 1 - confidence. Needs 6 values or more at 95%; fewer give [-Infinity, Infinity].
 */
export function medianInterval(values: readonly number[], confidence = 0.95): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  let k = 0;
  let tail = 0; // P(Binomial(n, 1/2) <= k - 1)
  for (let j = 0; j < n; j++) {
    const next = tail + binomialHalf(n, j);
    if (2 * next > 1 - confidence) break;
    tail = next;
    k = j + 1;
  }
  return k === 0 ? [-Infinity, Infinity] : [sorted[k - 1], sorted[n - k]];
}

/** P(Binomial(n, 1/2) = j), through logarithms so that n in the thousands does not overflow. */
function binomialHalf(n: number, j: number): number {
  let log = -n * Math.LN2;
  for (let i = 1; i <= j; i++) log += Math.log(n - j + i) - Math.log(i);
  return Math.exp(log);
}
