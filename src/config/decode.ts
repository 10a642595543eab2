// Reading a KubeProxyConfiguration file: byte checks, YAML/JSON parsing, version detection, strict
// decoding, defaulting for the file's version, and conversion to the effective (v1alpha2) shape.
import { isMap, isScalar, LineCounter, parseAllDocuments } from 'yaml';
import { v1alpha1ToV1alpha2, sourcePath } from './convert';
import { schemaFor } from './core-schema';
import { defaultBindAddresses, defaultsV1alpha1, defaultsV1alpha2, mergeOver } from './defaults';
import type { ApiVersion } from './mode-section';
import { decodeObject } from './schema';
import { KIND, KubeProxyConfiguration, V1ALPHA1, V1ALPHA2 } from './types';

/** Larger files are refused before parsing; real configurations are a few kilobytes. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

// Upstream decodes with go-yaml v2: YAML 1.1 scalars (yes/no/on/off are booleans, 0x10 and 010 are
// integers) but no timestamps or sexagesimal numbers, which stay strings. Duplicate keys are found by
// our own decoder (uniqueKeys off) so that the error can name the field's full path.
const YAML_OPTIONS = (lineCounter: LineCounter) => ({
  version: '1.1' as const,
  customTags: (tags: any[]) => tags.filter((t) => t.tag !== 'tag:yaml.org,2002:timestamp' && t.format !== 'TIME'),
  lineCounter,
  uniqueKeys: false,
  prettyErrors: true,
});

export interface LoadedFile {
  version?: ApiVersion;
  /** Absent when the file is unusable as a whole (see `fatal`). */
  config?: KubeProxyConfiguration;
  /** File-level problems: nothing in the file can be used. */
  fatal: string[];
  /** Field-level decoding problems; the field was left at its default. */
  fieldErrors: string[];
  warnings: string[];
  /** A v1alpha2 path as the operator wrote it in this file, and its line. */
  locate(path: string): { path: string; line?: number };
}

const fatal = (message: string): LoadedFile => ({ fatal: [message], fieldErrors: [], warnings: [], locate: (p) => ({ path: p }) });

function checkBytes(data: Uint8Array | string): string | { error: string } {
  const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  if (size > MAX_CONFIG_BYTES) return { error: `config file is too large: ${size} bytes (the limit is ${MAX_CONFIG_BYTES})` };
  let text: string;
  try {
    text = typeof data === 'string' ? data : new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return { error: 'config file is not UTF-8 text (binary data?)' };
  }
  const nul = text.indexOf('\0');
  if (nul >= 0) return { error: `config file is not text: it contains a NUL byte at offset ${nul}` };
  const controls = /[\u0001-\u0008\u000e-\u001f]/.exec(text);
  if (controls) return { error: `config file is not text: it contains control character 0x${controls[0].charCodeAt(0).toString(16).padStart(2, '0')} at offset ${controls.index}` };
  text = text.replace(/^\uFEFF/, '');
  if (text.trim() === '') return { error: 'config file is empty' };
  return text;
}

function apiVersionOf(root: unknown, lc: LineCounter): ApiVersion | { error: string } {
  if (!isMap(root)) return { error: 'config file must hold a YAML or JSON object (a KubeProxyConfiguration)' };
  const get = (k: string) => root.items.find((p) => isScalar(p.key) && p.key.value === k);
  const line = (p: { value?: unknown; key?: unknown }) => lc.linePos(((p.value ?? p.key) as any)?.range?.[0] ?? 0).line;
  const av = get('apiVersion');
  if (!av) return { error: `apiVersion: required field is missing (use ${V1ALPHA2})` };
  const avv = isScalar(av.value) ? av.value.value : undefined;
  if (avv !== V1ALPHA1 && avv !== V1ALPHA2) {
    return { error: `apiVersion: must be "${V1ALPHA1}" or "${V1ALPHA2}", got ${JSON.stringify(avv ?? null)} (line ${line(av)})` };
  }
  const kind = get('kind');
  if (!kind) return { error: `kind: required field is missing (must be "${KIND}")` };
  const kv = isScalar(kind.value) ? kind.value.value : undefined;
  if (kv !== KIND) return { error: `kind: must be "${KIND}", got ${JSON.stringify(kv ?? null)} (line ${line(kind)})` };
  return avv === V1ALPHA1 ? 'v1alpha1' : 'v1alpha2';
}

/** The defaults a field of a file of this version falls back to, in the effective shape. */
export function defaultsFor(version: ApiVersion): KubeProxyConfiguration {
  if (version === 'v1alpha2') {
    const d = defaultsV1alpha2();
    defaultBindAddresses(d, {}, '');
    return d as unknown as KubeProxyConfiguration;
  }
  const d = defaultsV1alpha1();
  defaultBindAddresses(d, {}, String(d.bindAddress));
  return v1alpha1ToV1alpha2(d).config;
}

export function loadConfigData(data: Uint8Array | string): LoadedFile {
  const text = checkBytes(data);
  if (typeof text !== 'string') return fatal(text.error);
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, YAML_OPTIONS(lc));
  if (!Array.isArray(docs)) return fatal('config file is empty');
  const nonEmpty = docs.filter((d) => d.contents !== null || d.errors.length > 0);
  if (nonEmpty.length === 0) return fatal('config file is empty');
  if (nonEmpty.length > 1) return fatal(`config file holds ${nonEmpty.length} YAML documents; expected exactly one KubeProxyConfiguration`);
  const doc = nonEmpty[0];
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const line = e.linePos ? ` (line ${e.linePos[0].line})` : '';
    return fatal(`config file is not valid YAML or JSON: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+.*$/, '')}${line}`);
  }
  const version = apiVersionOf(doc.contents, lc);
  if (typeof version !== 'string') return fatal(version.error);

  const strict = decodeObject(doc.contents, schemaFor(version), lc, doc as any);
  const described = (list: { path: string; message: string; line: number }[]) => list.map((i) => `${i.path}: ${i.message} (line ${i.line})`);
  // Upstream: when strict decoding fails only for unknown or duplicate fields, a v1alpha1 file is
  // decoded again leniently, with a warning (v1alpha2 stays strict).
  const lenient = version === 'v1alpha1' && strict.issues.length > 0 && strict.issues.every((i) => i.strict);
  const decoded = lenient ? decodeObject(doc.contents, schemaFor(version), lc, doc as any, true) : strict;
  const fieldErrors = described(decoded.issues);
  let config: KubeProxyConfiguration;
  let renames: Record<string, string> = {};
  const warnings: string[] = described(decoded.warnings);
  if (lenient) warnings.push(`Using lenient decoding as strict decoding failed: ${described(strict.issues).join('; ')}`);
  if (version === 'v1alpha1') {
    const v1 = mergeOver(defaultsV1alpha1(), decoded.value);
    defaultBindAddresses(v1, decoded.value, String(v1.bindAddress));
    const r = v1alpha1ToV1alpha2(v1);
    config = r.config;
    renames = r.renames;
    warnings.push(...r.warnings);
  } else {
    const v2 = mergeOver(defaultsV1alpha2(), decoded.value);
    defaultBindAddresses(v2, decoded.value, String((v2.nodeIPOverride as string[])[0] ?? ''));
    config = v2 as unknown as KubeProxyConfiguration;
  }
  const locate = (path: string) => {
    const src = version === 'v1alpha1' ? sourcePath(path, renames) : path;
    return { path: src, line: decoded.lines[src] ?? decoded.lines[src.replace(/\[\d+\]$/, '')] };
  };
  return { version, config, fatal: [], fieldErrors, warnings, locate };
}
