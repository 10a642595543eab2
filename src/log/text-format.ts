// The text format (--logging-format=text, upstream's default): pino's JSON records rendered as klog's
// text lines, the format operators' tools parse (klog's header, then the message and key=value pairs):
//   I1127 05:46:09.123000   12345 kube-proxy-native] "Syncing nftables rules" services=3 node="node-a"
// Severity I/W/E/F; month, day and local time to the microsecond (our clock gives milliseconds, so the
// last three digits are 000); the process id padded to 7 as klog pads it. klog then writes the Go
// file:line of the call; there is no such thing here, so that slot holds "kube-proxy-native" (parsers
// that read it as a free-form source field, like the usual fluentd klog pattern, are unaffected).
const SEVERITY: Record<number, string> = { 10: 'I', 20: 'I', 30: 'I', 40: 'W', 50: 'E', 60: 'F' };
/** The fields of a record that are part of the header, or JSON-only (the klog verbosity `v`). */
const HEADER = new Set(['level', 'ts', 'time', 'msg', 'pid', 'hostname', 'v']);
export const TEXT_SOURCE = 'kube-proxy-native';

const pad = (n: number, width: number, fill = '0'): string => String(n).padStart(width, fill);

/** klog's header: `Lmmdd hh:mm:ss.uuuuuu pppppppp source] `, in local time as klog writes it. */
export function klogHeader(severity: string, when: Date, pid: number): string {
  const date = `${pad(when.getMonth() + 1, 2)}${pad(when.getDate(), 2)}`;
  const time = `${pad(when.getHours(), 2)}:${pad(when.getMinutes(), 2)}:${pad(when.getSeconds(), 2)}.${pad(when.getMilliseconds(), 3)}000`;
  return `${severity}${date} ${time} ${pad(pid, 7, ' ')} ${TEXT_SOURCE}] `;
}

/** klog's key=value rendering: strings quoted, numbers and booleans bare, anything else as JSON. */
function value(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) return '<nil>';
  return JSON.stringify(v);
}

/** The severity letter of a pino level (numeric, or a label from elsewhere). */
function severityOf(level: unknown): string {
  if (typeof level === 'number') return SEVERITY[level] ?? (level >= 50 ? 'E' : 'I');
  const l = String(level ?? '').toLowerCase();
  return l === 'warn' ? 'W' : l === 'error' ? 'E' : l === 'fatal' ? 'F' : 'I';
}

/** Renders one pino JSON record as a klog text line; lines that are not JSON pass through. */
export function formatTextLine(jsonLine: string, pid: number = process.pid): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(jsonLine);
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  const at = typeof rec.ts === 'number' ? rec.ts : typeof rec.time === 'number' ? rec.time : Date.now();
  const fields = Object.entries(rec).filter(([k]) => !HEADER.has(k)).map(([k, v]) => ` ${k}=${value(v)}`);
  return `${klogHeader(severityOf(rec.level), new Date(at), pid)}${JSON.stringify(String(rec.msg ?? ''))}${fields.join('')}\n`;
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
