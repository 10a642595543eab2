// Checks a raw API object against client-node's model types before it is deserialised. The
// deserialiser coerces what it does not expect (a string where an object belongs becomes an empty
// object, so `conditions: "ready"` would read as a ready endpoint) or throws on it; Go's strict
// decoding in client-go refuses both. Here the first field of the wrong shape is named, so the
// object can be refused alone, with a message that says where it is broken.
import * as models from '@kubernetes/client-node';

interface AttributeType { name: string; baseName: string; type: string }
type ModelClass = { getAttributeTypeMap(): AttributeType[] };

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;
const PRIMITIVE: Record<string, string> = { string: 'string', number: 'number', boolean: 'boolean', Date: 'string' };
/** Fields whose model type is wider than the name says (targetPort: an integer or a string). */
const ANY = new Set(['any', 'object', 'IntOrString']);

function modelOf(type: string): ModelClass | undefined {
  const m = (models as unknown as Record<string, unknown>)[type];
  return typeof m === 'function' && typeof (m as unknown as Partial<ModelClass>).getAttributeTypeMap === 'function' ? (m as unknown as ModelClass) : undefined;
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** The first field of `raw` whose shape does not fit `type` ("spec.ports[0].port: expected a number, got a string"), or null. */
export function shapeProblem(raw: unknown, type: string, at = ''): string | null {
  if (raw === undefined || raw === null || ANY.has(type)) return null;
  const prim = PRIMITIVE[type];
  if (prim) return typeof raw === prim ? null : `${at || '(object)'}: expected a ${prim}, got ${kindOf(raw)}`;
  const arr = ARRAY.exec(type);
  if (arr) {
    if (!Array.isArray(raw)) return `${at}: expected a list, got ${kindOf(raw)}`;
    for (let i = 0; i < raw.length; i++) {
      const p = shapeProblem(raw[i], arr[1], `${at}[${i}]`);
      if (p) return p;
    }
    return null;
  }
  const map = MAP.exec(type);
  if (map) {
    if (typeof raw !== 'object' || Array.isArray(raw)) return `${at}: expected a map, got ${kindOf(raw)}`;
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      const p = shapeProblem(v, map[1], `${at}[${JSON.stringify(k)}]`);
      if (p) return p;
    }
    return null;
  }
  const model = modelOf(type);
  if (!model) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) return `${at || '(object)'}: expected an object, got ${kindOf(raw)}`;
  const obj = raw as Record<string, unknown>;
  for (const a of model.getAttributeTypeMap()) {
    if (obj[a.baseName] === undefined) continue;
    const p = shapeProblem(obj[a.baseName], a.type, at ? `${at}.${a.baseName}` : a.baseName);
    if (p) return p;
  }
  return null;
}
