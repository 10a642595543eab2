// The datapath bench's tables (both rulesets side by side, µs per connection above the no-ruleset
// connection; the paired difference ours - upstream's with its confidence interval) and its chart
// (extra µs against D, one panel per N).
import { signedUs } from '../lib/connect-timing';
import { lineChartSvg, sideBySideSvg, type Series } from '../report/svg';
import { markdownTable, type Cell } from '../report/table';
import type { CaseName, DatapathRow, Growth } from './measure-pair';

export const CASE_TITLES: Record<CaseName, string> = {
  first: 'Service, lookup first',
  last: 'Service, lookup last',
  miss: 'not a Service',
  nodeport: 'NodePort',
  affinity: 'session affinity',
};

/** µs above the no-ruleset connection of the same rounds (the median of the rounds' differences). */
export const extraUs = (r: DatapathRow, side: 'ours' | 'upstream', k: CaseName): number =>
  side === 'ours' ? r.cases[k].oursExtra : r.cases[k].upstreamExtra;

const CASES = Object.keys(CASE_TITLES) as CaseName[];

const pair = (r: DatapathRow, k: CaseName): string => `${signedUs(extraUs(r, 'ours', k))} / ${signedUs(extraUs(r, 'upstream', k))}`;

const diff = (r: DatapathRow, k: CaseName): string => {
  const c = r.cases[k];
  return `${signedUs(c.diff)} (${signedUs(c.diffLow)} .. ${signedUs(c.diffHigh)})`;
};

/** Per case: what each ruleset adds to a connection. */
export function datapathTable(rows: DatapathRow[]): string {
  return markdownTable(
    ['N', 'D', 'endpoints', 'no ruleset µs/conn (min-max over cases)', ...CASES.map((k) => `${CASE_TITLES[k]}: extra µs (ours / upstream)`), 'ours: full sync s', 'upstream: nft -f s'],
    rows.map((r): Cell[] => [
      r.services, r.distinct, r.endpoints, bareRange(r),
      ...CASES.map((k) => pair(r, k)), r.oursSyncS.toFixed(2), r.upstreamLoadS.toFixed(1),
    ]),
  );
}

/** Per case: ours - upstream's, the median of the rounds' paired differences and its 95% confidence interval. */
export function differenceTable(rows: DatapathRow[]): string {
  return markdownTable(
    ['N', 'D', ...CASES.map((k) => `${CASE_TITLES[k]}: ours - upstream µs (95% CI)`)],
    rows.map((r): Cell[] => [r.services, r.distinct, ...CASES.map((k) => diff(r, k))]),
  );
}

const growth = (g: Growth): string => {
  const pct = (100 * g.diff) / g.atOneExtra;
  return `${signedUs(g.diff)} (${signedUs(g.low)} .. ${signedUs(g.high)}) ${pct >= 0 ? '+' : ''}${pct.toFixed(0)}%`;
};

const flat = (r: DatapathRow, k: CaseName): string => {
  const f = r.cases[k].flat;
  return f ? `${growth(f.ours)} / ${growth(f.upstream)}` : '-';
};

/** Per case, for each ruleset: at D - at D = 1 (the same N, the same rounds), and that as a share of its extra µs at D = 1. */
export function flatnessTable(rows: DatapathRow[]): string {
  return markdownTable(
    ['N', 'D', ...CASES.map((k) => `${CASE_TITLES[k]}: at D - at D = 1, µs (95% CI) % (ours / upstream)`)],
    rows.map((r): Cell[] => [r.services, r.distinct, ...CASES.map((k) => flat(r, k))]),
  );
}

function bareRange(r: DatapathRow): string {
  const v = CASES.map((k) => r.cases[k].bare);
  return `${Math.min(...v).toFixed(1)}-${Math.max(...v).toFixed(1)}`;
}

/** The charted cases and their colours (a case's two rulesets share one; upstream's line is dashed). */
const CHARTED: [CaseName, string][] = [['last', '#d62728'], ['first', '#1f77b4'], ['nodeport', '#2ca02c']];

/** One panel per N: extra µs per connection against D, ours solid, upstream dashed (points at or below 0 are left out: log axes). */
export function datapathChart(rows: DatapathRow[], subtitle: string): string {
  const sizes = [...new Set(rows.map((r) => r.services))];
  const panels = sizes.map((n) => {
    const at = rows.filter((r) => r.services === n);
    const series: Series[] = CHARTED.flatMap(([k, color]) => (['ours', 'upstream'] as const).map((side) => ({
      color,
      name: `${side === 'ours' ? 'ours' : 'upstream'}: ${CASE_TITLES[k]}`,
      dashed: side === 'upstream',
      points: at.map((r) => ({ x: r.distinct, y: extraUs(r, side, k) })),
    })));
    return lineChartSvg({
      title: `New connection's cost over no ruleset, ${n.toLocaleString('en-US')} Services`, subtitle,
      xLabel: 'distinct endpoint counts D', yLabel: 'extra µs per connection', yUnit: 'µs', xName: 'D', series,
    });
  });
  return panels.length === 1 ? panels[0] : sideBySideSvg(panels);
}
