// Copies the part of a raw API object the proxy reads into new plain objects, as client-go's informer
// transform (SetTransform) does: what is not listed is never kept. Runs after the shape check
// (shape-check.ts), so every value met here has the shape its model type says.

/** What to keep of one value. */
export type Keep =
  /** The value as sent: a string, number or boolean, or a list of them. */
  | { readonly as: 'value' }
  /** A timestamp string, as a Date (the type client-node's models give it). */
  | { readonly as: 'date' }
  /** A string map (labels, annotations): only these keys. */
  | { readonly as: 'keys'; readonly keys: readonly string[] }
  /** A list of objects: each element as `of` says. */
  | { readonly as: 'list'; readonly of: Keep }
  /** An object: only these fields. */
  | { readonly as: 'object'; readonly fields: Readonly<Record<string, Keep>> };

export const value: Keep = { as: 'value' };
export const date: Keep = { as: 'date' };
export const keys = (...k: string[]): Keep => ({ as: 'keys', keys: k });
export const list = (of: Keep): Keep => ({ as: 'list', of });
export const fields = (f: Record<string, Keep>): Keep => ({ as: 'object', fields: f });

/**
 * The kept part of `raw`. `null` stays `null` and `undefined` stays absent, as client-node's
 * deserialiser leaves them (the model has defaults for both). A map left with none of its keys is
 * dropped (readers look keys up, so absent and empty read the same); objects and lists stay, even
 * empty (an empty spec and no spec are logged differently by the model).
 */
export function pick(raw: unknown, keep: Keep): unknown {
  if (raw === undefined || raw === null) return raw;
  switch (keep.as) {
    case 'value':
      return raw;
    case 'date':
      return new Date(raw as string);
    case 'keys':
      return pickKeys(raw as Record<string, unknown>, keep.keys);
    case 'list':
      return Array.isArray(raw) ? raw.map((e) => pick(e, keep.of)) : raw;
    case 'object':
      return pickFields(raw as Record<string, unknown>, keep.fields);
  }
}

function pickKeys(raw: Record<string, unknown>, wanted: readonly string[]): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const k of wanted) {
    if (!Object.prototype.hasOwnProperty.call(raw, k) || raw[k] === undefined) continue;
    (out ??= {})[k] = raw[k];
  }
  return out;
}

function pickFields(raw: Record<string, unknown>, wanted: Readonly<Record<string, Keep>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in wanted) {
    if (!Object.prototype.hasOwnProperty.call(raw, k)) continue;
    const v = pick(raw[k], wanted[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}
