// Reads a prom-client histogram's totals (summed over its label sets). One sync adds one
// observation, so the difference of `sum` across a sync is exactly the value the proxier observed.
import type { Registry } from 'prom-client';

export interface HistogramTotals { count: number; sum: number; buckets: Map<number, number> }

export async function histogramTotals(registry: Registry, name: string): Promise<HistogramTotals> {
  const metric = registry.getSingleMetric(name);
  if (!metric) {
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name).filter((n) => n.includes('sync'));
    throw new Error(`metric ${name} is not registered (sync metrics present: ${names.join(', ') || 'none'})`);
  }
  const data = await metric.get();
  const totals: HistogramTotals = { count: 0, sum: 0, buckets: new Map() };
  for (const v of data.values) {
    const m = (v as { metricName?: string }).metricName ?? '';
    if (m.endsWith('_sum')) totals.sum += v.value;
    else if (m.endsWith('_count')) totals.count += v.value;
    else if (m.endsWith('_bucket')) {
      const le = Number(v.labels.le === '+Inf' ? Infinity : v.labels.le);
      totals.buckets.set(le, (totals.buckets.get(le) ?? 0) + v.value);
    }
  }
  return totals;
}

/** The histogram's own quantile estimate: the upper bound of the bucket holding the q-th observation. */
export function bucketQuantile(buckets: Map<number, number>, count: number, q: number): number | undefined {
  if (count === 0) return undefined;
  const rank = q * count;
  for (const [le, cumulative] of [...buckets].sort((a, b) => a[0] - b[0])) {
    if (cumulative >= rank) return le;
  }
  return Infinity;
}

export function quantile(samples: number[], q: number): number | undefined {
  if (samples.length === 0) return undefined;
  const s = [...samples].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}
