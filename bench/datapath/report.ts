// The datapath bench's table (both rulesets side by side, µs per connection above each namespace's
// no-ruleset connection) and its chart (extra µs against D, one panel per N).
import { signedUs } from '../lib/connect-timing';
import { lineChartSvg, sideBySideSvg, type Series } from '../report/svg';
import { markdownTable, type Cell } from '../report/table';
import type { CaseName, DatapathRow } from './measure-pair';

export const CASE_TITLES: Record<CaseName, string> = {
  first: 'Service, lookup first',
  last: 'Service, lookup last',
  miss: 'not a Service',
  nodeport: 'NodePort',
  affinity: 'session affinity',
};

/** µs above the same case's connection in the namespace without a ruleset. */
export const extraUs = (r: DatapathRow, side: 'ours' | 'upstream', k: CaseName): number => r[side][k] - r.bare[k];

const pair = (r: DatapathRow, k: CaseName): string => `${signedUs(extraUs(r, 'ours', k))} / ${signedUs(extraUs(r, 'upstream', k))}`;

export function datapathTable(rows: DatapathRow[]): string {
  const cases = Object.keys(CASE_TITLES) as CaseName[];
  return markdownTable(
    ['N', 'D', 'endpoints', 'no ruleset µs/conn (min-max over cases)', ...cases.map((k) => `${CASE_TITLES[k]}: extra µs (ours / upstream)`), 'ours: full sync s', 'upstream: nft -f s'],
    rows.map((r): Cell[] => [
      r.services, r.distinct, r.endpoints, bareRange(r),
      ...cases.map((k) => pair(r, k)), r.oursSyncS.toFixed(2), r.upstreamLoadS.toFixed(1),
    ]),
  );
}

function bareRange(r: DatapathRow): string {
  const v = Object.values(r.bare);
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
