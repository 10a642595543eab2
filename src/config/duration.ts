// Go's time.Duration text format, which upstream config files and flags use ("1m30s", "500ms", "24h0m0s").
// Durations are held as milliseconds (a float, so "1.5ms" or "250us" survive).

const UNIT_NS: Record<string, number> = {
  ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9,
};
// Go rejects durations beyond int64 nanoseconds (about 292 years).
const MAX_NS = 9.223372036854775e18;

/** Parses a Go duration; returns milliseconds, or throws an Error whose message says what is wrong. */
export function parseDuration(text: string): number {
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new Error(`invalid duration "${text}"`);
  let ns = 0;
  while (s !== '') {
    const m = /^(\d*)(?:\.(\d*))?([^\d.]*)/.exec(s);
    if (!m || (m[1] === '' && (m[2] === undefined || m[2] === ''))) throw new Error(`invalid duration "${text}"`);
    const unit = m[3];
    if (unit === '') throw new Error(`invalid duration "${text}": missing unit`);
    const scale = UNIT_NS[unit];
    if (scale === undefined) throw new Error(`invalid duration "${text}": unknown unit "${unit}"`);
    ns += Number(`${m[1] || '0'}.${m[2] || '0'}`) * scale;
    s = s.slice(m[0].length);
  }
  if (ns > MAX_NS) throw new Error(`invalid duration "${text}": out of range`);
  return (sign * ns) / 1e6;
}

function trimNumber(x: number): string {
  return String(Number(x.toFixed(9)));
}

/** Formats milliseconds the way Go's Duration.String does ("1h0m0s", "30s", "500ms", "0s"). */
export function formatDuration(ms: number): string {
  let ns = Math.round(ms * 1e6);
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  ns = Math.abs(ns);
  if (ns < 1e3) return `${sign}${ns}ns`;
  if (ns < 1e6) return `${sign}${trimNumber(ns / 1e3)}µs`;
  if (ns < 1e9) return `${sign}${trimNumber(ns / 1e6)}ms`;
  const h = Math.floor(ns / 3600e9);
  let rest = ns - h * 3600e9;
  const m = Math.floor(rest / 60e9);
  rest -= m * 60e9;
  const hours = h > 0 ? `${h}h` : '';
  const minutes = h > 0 || m > 0 ? `${m}m` : '';
  return `${sign}${hours}${minutes}${trimNumber(rest / 1e9)}s`;
}
