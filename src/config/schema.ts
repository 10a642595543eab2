// A small schema language for KubeProxyConfiguration and a strict decoder over the `yaml` AST.
// Strict like upstream's decoder (unknown fields, duplicate fields and wrong types are errors), but each
// error carries the field's full path and the line it is on.
import { Document, isAlias, isMap, isScalar, isSeq, LineCounter, Node, Pair, Scalar } from 'yaml';
import { parseDuration } from './duration';

export type Field =
  | { t: 'string'; zeroIsUnset?: boolean }
  | { t: 'bool' }
  | { t: 'int32'; zeroIsUnset?: boolean }
  | { t: 'uint32' }
  | { t: 'float'; zeroIsUnset?: boolean }
  /** Go duration text; milliseconds once decoded. zeroIsUnset: upstream defaults a zero value.
   *  orNanoseconds: an integer is also accepted, as nanoseconds (component-base's TimeOrMetaDuration). */
  | { t: 'duration'; zeroIsUnset?: boolean; orNanoseconds?: boolean }
  | { t: 'strings' }
  | { t: 'boolMap' }
  /** A resource quantity: string or integer. */
  | { t: 'quantity' }
  | { t: 'object'; fields: Schema }
  | { t: 'objects'; fields: Schema }
  /** A field of the other API version: decoding it is an "unknown field" error with a hint. */
  | { t: 'gone'; hint: string }
  /** A field older upstream releases wrote and newer ones dropped: accepted, ignored, with a warning. */
  | { t: 'ignored'; hint: string };

export type Schema = Record<string, Field>;

/** `strict`: an unknown or duplicate field, which only strict decoding refuses (upstream's IsStrictDecodingError). */
export interface DecodeIssue { path: string; message: string; line: number; strict?: true }

export interface Decoded {
  value: Record<string, unknown>;
  issues: DecodeIssue[];
  warnings: DecodeIssue[];
  /** Line of every decoded field, by its path in the source version. */
  lines: Record<string, number>;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function describe(node: unknown): string {
  if (isMap(node)) return 'an object';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    if (typeof v === 'string') return `string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '...' : v)}`;
    if (typeof v === 'number') return `number ${v}`;
    if (typeof v === 'boolean') return `boolean ${v}`;
    return String(v);
  }
  return 'an unsupported value (alias or tag)';
}

class Walker {
  issues: DecodeIssue[] = [];
  warnings: DecodeIssue[] = [];
  lines: Record<string, number> = {};
  /** lenient: unknown fields are skipped and a repeated field's last value wins, as Go's non-strict decoders do. */
  constructor(private readonly lc: LineCounter, private readonly doc?: Document, private readonly lenient = false) {}

  /** Anchors and aliases (&a / *a) are allowed, as go-yaml allows them; an alias reads as its target. */
  private deref(node: unknown): unknown {
    let n = node;
    for (let i = 0; i < 32 && isAlias(n) && this.doc; i++) n = n.resolve(this.doc);
    return n;
  }

  line(node: { range?: [number, number, number] | null } | null | undefined): number {
    const off = node?.range?.[0] ?? 0;
    return this.lc.linePos(off).line;
  }

  issue(path: string, message: string, node: unknown): void {
    this.issues.push({ path, message, line: this.line(node as Node) });
  }

  /** A problem only strict decoding has; a lenient decode passes over it. */
  private strictIssue(path: string, message: string, node: unknown): void {
    if (!this.lenient) this.issues.push({ path, message, line: this.line(node as Node), strict: true });
  }

  object(raw: unknown, schema: Schema, prefix: string): Record<string, unknown> | undefined {
    const node = this.deref(raw);
    if (!isMap(node)) {
      this.issue(prefix || '(root)', `must be an object, got ${describe(node)}`, node);
      return undefined;
    }
    const out: Record<string, unknown> = {};
    const seen = new Map<string, number>();
    for (const pair of node.items as Pair<unknown, unknown>[]) {
      const keyNode = pair.key;
      if (!isScalar(keyNode) || typeof keyNode.value !== 'string') {
        this.issue(prefix || '(root)', `field names must be strings, got ${describe(keyNode)}`, keyNode ?? node);
        continue;
      }
      const key = keyNode.value;
      const path = prefix ? `${prefix}.${key}` : key;
      const firstLine = seen.get(key);
      if (firstLine !== undefined && !this.lenient) {
        this.strictIssue(path, `duplicate field (first set on line ${firstLine})`, keyNode);
        delete out[key];
        continue;
      }
      seen.set(key, this.line(keyNode));
      const field = schema[key];
      if (!field) {
        this.strictIssue(path, 'unknown field', keyNode);
        continue;
      }
      if (field.t === 'gone') {
        this.strictIssue(path, `unknown field: ${field.hint}`, keyNode);
        continue;
      }
      if (field.t === 'ignored') {
        this.warnings.push({ path, message: `ignored: ${field.hint}`, line: this.line(keyNode) });
        continue;
      }
      const v = this.field(pair.value, field, path);
      if (v !== undefined) {
        out[key] = v;
        this.lines[path] = this.line((pair.value as Node) ?? keyNode);
      }
    }
    return out;
  }

  private scalar(node: unknown): Scalar | undefined {
    return isScalar(node) ? node : undefined;
  }

  field(raw: unknown, f: Field, path: string): unknown {
    const node = this.deref(raw);
    // JSON null (and an empty YAML value) leaves a field unset, as Go's decoder does.
    if (node === null || node === undefined || (isScalar(node) && node.value === null)) return undefined;
    const s = this.scalar(node);
    const bad = (what: string): undefined => {
      this.issue(path, `must be ${what}, got ${describe(node)}`, node);
      return undefined;
    };
    switch (f.t) {
      case 'string':
        if (!s || typeof s.value !== 'string') return bad('a string');
        return f.zeroIsUnset && s.value === '' ? undefined : s.value;
      case 'bool':
        if (!s || typeof s.value !== 'boolean') return bad('a boolean (true or false)');
        return s.value;
      case 'int32':
      case 'uint32': {
        const what = f.t === 'int32' ? 'an integer (int32)' : 'a non-negative integer';
        if (!s || typeof s.value !== 'number' || !Number.isInteger(s.value)) return bad(what);
        const min = f.t === 'int32' ? INT32_MIN : 0;
        const max = f.t === 'int32' ? INT32_MAX : 4294967295;
        if (s.value < min || s.value > max) return bad(`${what} in [${min}, ${max}]`);
        return f.t === 'int32' && f.zeroIsUnset && s.value === 0 ? undefined : s.value;
      }
      case 'float':
        if (!s || typeof s.value !== 'number' || !Number.isFinite(s.value)) return bad('a number');
        return f.zeroIsUnset && s.value === 0 ? undefined : s.value;
      case 'duration': {
        if (f.orNanoseconds && s && typeof s.value === 'number' && Number.isInteger(s.value)) {
          const ms = s.value / 1e6;
          return f.zeroIsUnset && ms === 0 ? undefined : ms;
        }
        if (!s || typeof s.value !== 'string') return bad('a duration string such as "30s" or "1m30s"');
        try {
          const ms = parseDuration(s.value);
          return f.zeroIsUnset && ms === 0 ? undefined : ms;
        } catch (e) {
          this.issue(path, (e as Error).message, node);
          return undefined;
        }
      }
      case 'quantity':
        if (!s || (typeof s.value !== 'string' && !(typeof s.value === 'number' && Number.isInteger(s.value)))) {
          return bad('a quantity (string or integer)');
        }
        return String(s.value);
      case 'strings': {
        if (!isSeq(node)) return bad('a list of strings');
        const out: string[] = [];
        node.items.forEach((rawItem, i) => {
          const item = this.deref(rawItem);
          const is = this.scalar(item);
          if (!is || typeof is.value !== 'string') {
            this.issue(`${path}[${i}]`, `must be a string, got ${describe(item)}`, item ?? node);
          } else {
            out.push(is.value);
            this.lines[`${path}[${i}]`] = this.line(item as Node);
          }
        });
        return out.length === node.items.length ? out : undefined;
      }
      case 'boolMap': {
        if (!isMap(node)) return bad('a map of names to booleans');
        const out: Record<string, boolean> = {};
        const firstLine: Record<string, number> = {};
        let ok = true;
        for (const pair of node.items as Pair<unknown, unknown>[]) {
          const k = this.scalar(pair.key);
          const v = this.scalar(this.deref(pair.value));
          const name = k ? String(k.value) : '?';
          if (!k || typeof k.value !== 'string') {
            this.issue(path, `keys must be strings, got ${describe(pair.key)}`, pair.key ?? node);
            ok = false;
          } else if (name in firstLine && !this.lenient) {
            this.strictIssue(`${path}.${name}`, `duplicate field (first set on line ${firstLine[name]})`, pair.key);
            ok = false;
          } else if (!v || typeof v.value !== 'boolean') {
            this.issue(`${path}.${name}`, `must be a boolean (true or false), got ${describe(pair.value)}`, pair.value ?? pair.key);
            ok = false;
          } else out[name] = v.value;
          if (k && typeof k.value === 'string' && !(name in firstLine)) firstLine[name] = this.line(k);
        }
        return ok ? out : undefined;
      }
      case 'object':
        return this.object(node, f.fields, path);
      case 'objects': {
        if (!isSeq(node)) return bad('a list of objects');
        const out = node.items.map((item, i) => this.object(item, f.fields, `${path}[${i}]`));
        return out.every((o) => o !== undefined) ? out : undefined;
      }
      case 'gone':
      case 'ignored':
        return undefined;
    }
  }
}

/** Decodes a YAML map node against a schema. Unset and unusable fields are left out of `value`. */
export function decodeObject(node: unknown, schema: Schema, lc: LineCounter, doc?: Document, lenient = false): Decoded {
  const w = new Walker(lc, doc, lenient);
  const value = w.object(node, schema, '') ?? {};
  return { value, issues: w.issues, warnings: w.warnings, lines: w.lines };
}
