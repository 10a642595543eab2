// A small log-log line chart as standalone SVG (no dependencies), for sync time or memory vs cluster size.
export interface Series { name: string; points: { x: number; y: number }[]; dashed?: boolean; /** Default: the palette's next. */ color?: string }
export interface Chart {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  /** What y is in: seconds (default; ticks read "5 ms", "2 s"), MiB or µs. */
  yUnit?: 's' | 'MiB' | 'µs';
  /** What x is called in a point's tooltip (default N). */
  xName?: string;
}

const W = 860;
const H = 520;
const M = { left: 80, right: 250, top: 60, bottom: 60 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function decades(values: number[]): [number, number] {
  const logs = values.filter((v) => v > 0).map(Math.log10);
  if (logs.length === 0) return [0, 1];
  const lo = Math.floor(Math.min(...logs));
  const hi = Math.ceil(Math.max(...logs));
  return [lo, hi === lo ? lo + 1 : hi];
}

function yLabelOf(v: number, unit: Chart['yUnit']): string {
  if (unit === 'MiB' || unit === 'µs') return `${Number(v.toPrecision(3))} ${unit}`;
  return `${label(Number(v.toPrecision(3)))}${v >= 1 ? ' s' : ''}`;
}

function label(v: number): string {
  if (v >= 1000) return `${v / 1000}k`;
  if (v >= 1) return String(v);
  return v >= 0.001 ? `${v * 1000} ms` : `${v * 1e6} µs`;
}

export function lineChartSvg(c: Chart): string {
  const pts = c.series.flatMap((s) => s.points).filter((p) => p.x > 0 && p.y > 0);
  const [x0, x1] = decades(pts.map((p) => p.x));
  const [y0, y1] = decades(pts.map((p) => p.y));
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const sx = (x: number) => M.left + ((Math.log10(x) - x0) / (x1 - x0)) * pw;
  const sy = (y: number) => M.top + ph - ((Math.log10(y) - y0) / (y1 - y0)) * ph;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.left}" y="24" font-size="16" font-weight="bold">${esc(c.title)}</text>`,
  ];
  if (c.subtitle) out.push(`<text x="${M.left}" y="42" fill="#555">${esc(c.subtitle)}</text>`);
  for (let d = x0; d <= x1; d++) {
    for (const m of d < x1 ? [1, 2, 5] : [1]) {
      const v = m * 10 ** d;
      const x = sx(v).toFixed(1);
      out.push(`<line x1="${x}" y1="${M.top}" x2="${x}" y2="${M.top + ph}" stroke="${m === 1 ? '#ccc' : '#eee'}"/>`);
      out.push(`<text x="${x}" y="${M.top + ph + 18}" text-anchor="middle">${label(v)}</text>`);
    }
  }
  for (let d = y0; d <= y1; d++) {
    for (const m of d < y1 ? [1, 2, 5] : [1]) {
      const v = m * 10 ** d;
      const y = sy(v).toFixed(1);
      out.push(`<line x1="${M.left}" y1="${y}" x2="${M.left + pw}" y2="${y}" stroke="${m === 1 ? '#ccc' : '#eee'}"/>`);
      out.push(`<text x="${M.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${yLabelOf(v, c.yUnit)}</text>`);
    }
  }
  out.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${M.left + pw / 2}" y="${H - 16}" text-anchor="middle">${esc(c.xLabel)}</text>`);
  out.push(`<text transform="translate(20 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(c.yLabel)}</text>`);
  c.series.forEach((s, i) => {
    const color = s.color ?? COLORS[i % COLORS.length];
    const p = s.points.filter((q) => q.x > 0 && q.y > 0).sort((a, b) => a.x - b.x);
    const d = p.map((q, j) => `${j ? 'L' : 'M'}${sx(q.x).toFixed(1)},${sy(q.y).toFixed(1)}`).join(' ');
    if (d) out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    for (const q of p) {
      out.push(`<circle cx="${sx(q.x).toFixed(1)}" cy="${sy(q.y).toFixed(1)}" r="3.5" fill="${color}"><title>${esc(s.name)}: ${c.xName ?? 'N'}=${q.x}, ${q.y.toPrecision(3)} ${c.yUnit ?? 's'}</title></circle>`);
    }
    const ly = M.top + 10 + i * 22;
    const lx = M.left + pw + 16;
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    out.push(`<text x="${lx + 30}" y="${ly}" dominant-baseline="middle">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** Charts made by lineChartSvg, side by side in one SVG. */
export function sideBySideSvg(charts: string[]): string {
  const inner = charts.map((svg, i) => svg.replace('<svg ', `<svg x="${i * W}" y="0" `)).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W * charts.length}" height="${H}" viewBox="0 0 ${W * charts.length} ${H}">\n${inner}</svg>\n`;
}
