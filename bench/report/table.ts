// Plain markdown tables: readable in a terminal and pasteable into a report.
export type Cell = string | number | undefined;

export function fmt(v: Cell, digits = 3): string {
  if (v === undefined || (typeof v === 'number' && Number.isNaN(v))) return '-';
  if (typeof v === 'string') return v;
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return v.toFixed(digits);
}

export function markdownTable(headers: string[], rows: Cell[][]): string {
  const cells = rows.map((r) => r.map((c) => fmt(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

export function ratio(a: number, b: number): number | undefined {
  return b > 0 ? a / b : undefined;
}

export function progress(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}
