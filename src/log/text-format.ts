// A minimal human-readable rendering of pino's JSON lines (pino-pretty is not a dependency):
//   2026-11-26T04:05:07.123Z WARN  IPVS proxy mode is deprecated ... mode=ipvs
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s="]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v);
}

/** Renders one pino JSON record as a line of text; lines that are not JSON pass through. */
export function formatTextLine(jsonLine: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(jsonLine);
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  const level = typeof rec.level === 'number' ? LEVELS[rec.level] ?? String(rec.level) : String(rec.level ?? '').toUpperCase();
  const time = typeof rec.time === 'number' ? new Date(rec.time).toISOString() : String(rec.time ?? '');
  const fields = Object.entries(rec).filter(([k]) => !OMIT.has(k)).map(([k, v]) => `${k}=${value(v)}`);
  return [time, level.padEnd(5), String(rec.msg ?? ''), ...fields].join(' ').trimEnd() + '\n';
}

/** A pino destination that writes each record as text to `out`. */
export function textDestination(out: { write(s: string): unknown }): { write(s: string): void } {
  let pending = '';
  return {
    write(chunk: string) {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        out.write(formatTextLine(pending.slice(0, nl)));
        pending = pending.slice(nl + 1);
      }
    },
  };
}
