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

/**
 * The field selectors each resource accepts on kube-apiserver v1.37.2, and how it refuses the others
 * (400 BadRequest). The core group's resources have their own conversion functions and say "field
 * label not supported"; the others accept metadata.name and metadata.namespace only (even when
 * cluster-scoped) and say so. Read off the real server; nodes, for one, refuse metadata.namespace.
 */
const FIELDS: Record<string, { paths: string[]; core: boolean }> = {
  services: { paths: ['metadata.name', 'metadata.namespace', 'spec.clusterIP', 'spec.type'], core: true },
  nodes: { paths: ['metadata.name', 'spec.unschedulable'], core: true },
  namespaces: { paths: ['metadata.name', 'status.phase'], core: true },
  endpointslices: { paths: ['metadata.name', 'metadata.namespace'], core: false },
  servicecidrs: { paths: ['metadata.name', 'metadata.namespace'], core: false },
};

export function validateFields(reqs: FieldRequirement[], resource = 'services'): void {
  const f = FIELDS[resource] ?? FIELDS.endpointslices;
  for (const r of reqs) {
    if (f.paths.includes(r.path)) continue;
    throw new Error(f.core ? `field label not supported: ${r.path}` : `"${r.path}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
  }
}

/** A field's value as the API server's field set holds it (strings; an unset one is ""). */
function fieldValue(path: string, obj: FieldObject): string {
  switch (path) {
    case 'metadata.name':
      return obj.metadata?.name ?? '';
    case 'metadata.namespace':
      return obj.metadata?.namespace ?? '';
    case 'spec.clusterIP':
      return String(obj.spec?.clusterIP ?? '');
    case 'spec.type':
      return String(obj.spec?.type ?? '');
    case 'spec.unschedulable':
      return String(obj.spec?.unschedulable === true);
    case 'status.phase':
      return String(obj.status?.phase ?? '');
    default:
      return '';
  }
}

type FieldObject = { metadata?: { name?: string; namespace?: string }; spec?: Record<string, unknown>; status?: Record<string, unknown> };

export function matchesFields(reqs: FieldRequirement[], obj: FieldObject): boolean {
  return reqs.every((r) => {
    const actual = fieldValue(r.path, obj);
    return r.op === '=' ? actual === r.value : actual !== r.value;
  });
}
