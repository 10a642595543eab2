// Label and field selectors as the API server parses them (the subset kube-proxy and its tests use).
// Label: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`; comma = AND.
// Field: `path=v`, `path==v`, `path!=v`; comma = AND.

export type LabelRequirement =
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!exists' };

export interface FieldRequirement {
  path: string;
  op: '=' | '!=';
  value: string;
}

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function parseLabelTerm(term: string): LabelRequirement {
  const setMatch = /^([^\s!=(),]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (setMatch) {
    const values = setMatch[3].split(',').map((v) => v.trim()).filter((v) => v !== '');
    return { key: setMatch[1], op: setMatch[2] as 'in' | 'notin', values };
  }
  const cmp = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(term);
  if (cmp) {
    return { key: cmp[1], op: cmp[2] === '!=' ? 'notin' : 'in', values: [cmp[3]] };
  }
  const notExists = /^!\s*([^\s!=(),]+)$/.exec(term);
  if (notExists) return { key: notExists[1], op: '!exists' };
  if (/^[^\s!=(),]+$/.test(term)) return { key: term, op: 'exists' };
  throw new Error(`unable to parse requirement: ${JSON.stringify(term)}`);
}

export function parseLabelSelector(s: string | undefined): LabelRequirement[] {
  if (!s) return [];
  return splitTopLevel(s).map(parseLabelTerm);
}

export function matchesLabels(reqs: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case '!exists':
        return !has;
      case 'in':
        return has && r.values.includes(l[r.key]);
      case 'notin':
        return !has || !r.values.includes(l[r.key]);
    }
  });
}

export function parseFieldSelector(s: string | undefined): FieldRequirement[] {
  if (!s) return [];
  return s
    .split(',')
    .filter((t) => t.trim() !== '')
    .map((term) => {
      const m = /^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/.exec(term.trim());
      if (!m) throw new Error(`invalid field selector term: ${JSON.stringify(term)}`);
      return { path: m[1], op: m[2] === '!=' ? '!=' : '=', value: m[3] };
    });
}

/** The field paths each kind supports (like the API server, unknown paths are rejected). */
export const SUPPORTED_FIELDS = new Set(['metadata.name', 'metadata.namespace']);

export function validateFields(reqs: FieldRequirement[]): void {
  for (const r of reqs) {
    if (!SUPPORTED_FIELDS.has(r.path)) throw new Error(`field label not supported: ${r.path}`);
  }
}

export function matchesFields(reqs: FieldRequirement[], obj: { metadata?: { name?: string; namespace?: string } }): boolean {
  return reqs.every((r) => {
    const actual = r.path === 'metadata.name' ? obj.metadata?.name ?? '' : obj.metadata?.namespace ?? '';
    return r.op === '=' ? actual === r.value : actual !== r.value;
  });
}
