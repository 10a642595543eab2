// A small parser for the Prometheus text exposition format, so tests read /metrics as a scraper would.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help?: string;
  type?: string;
}

export interface Scrape {
  families: Map<string, Family>;
  samples: Sample[];
}

function parseLabels(s: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(s); m; m = re.exec(s)) labels[m[1]] = m[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  return labels;
}

export function parsePrometheusText(text: string): Scrape {
  const families = new Map<string, Family>();
  const samples: Sample[] = [];
  const family = (name: string): Family => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name }));
    return f;
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      if (meta[1] === 'HELP') family(meta[2]).help = meta[3];
      else family(meta[2]).type = meta[3];
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(\s+\d+)?$/.exec(line);
    if (!m) throw new Error(`unparsable metrics line: ${line}`);
    const value = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    samples.push({ name: m[1], labels: m[2] ? parseLabels(m[2]) : {}, value });
  }
  return { families, samples };
}

export function sample(s: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  return s.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v))?.value;
}

/** Upper bounds of a histogram's buckets, in order, without +Inf. */
export function bucketBounds(s: Scrape, name: string, labels: Record<string, string> = {}): number[] {
  return s.samples
    .filter((x) => x.name === `${name}_bucket` && Object.entries(labels).every(([k, v]) => x.labels[k] === v))
    .map((x) => Number(x.labels.le))
    .filter((b) => Number.isFinite(b));
}
