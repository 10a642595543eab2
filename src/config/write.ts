// Serialising a configuration as a KubeProxyConfiguration document (durations in Go syntax, keys sorted,
// every field explicit so the file does not depend on a version's defaults).
import { stringify } from 'yaml';
import { v1alpha2ToV1alpha1 } from './convert';
import { schemaFor } from './core-schema';
import { formatDuration } from './duration';
import type { Field, Schema } from './schema';
import type { KubeProxyConfiguration } from './types';

function encodeField(v: unknown, f: Field): unknown {
  if (v === undefined) return undefined;
  switch (f.t) {
    case 'duration': return formatDuration(v as number);
    case 'object': return encodeObject(v as Record<string, unknown>, f.fields);
    case 'objects': return (v as Record<string, unknown>[]).map((o) => encodeObject(o, f.fields));
    case 'gone':
    case 'ignored': return undefined;
    default: return v;
  }
}

function encodeObject(o: Record<string, unknown>, schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(schema)) {
    const v = encodeField(o[k], f);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** The effective configuration as a v1alpha2 YAML document (what --write-config-to writes). */
export function toV1alpha2Yaml(c: KubeProxyConfiguration): string {
  return stringify(encodeObject(c as unknown as Record<string, unknown>, schemaFor('v1alpha2')), { sortMapEntries: true, version: '1.1' });
}

/** The configuration as a v1alpha1 document, and the v1alpha2 fields that v1alpha1 cannot carry. */
export function toV1alpha1Yaml(c: KubeProxyConfiguration): { yaml: string; lost: string[] } {
  const { doc, lost } = v1alpha2ToV1alpha1(c);
  return { yaml: stringify(encodeObject(doc, schemaFor('v1alpha1')), { sortMapEntries: true, version: '1.1' }), lost };
}
