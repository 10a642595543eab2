// Checks a raw API object against client-node's model types before it is deserialised. The
// deserialiser coerces what it does not expect (a string where an object belongs becomes an empty
// object, so `conditions: "ready"` would read as a ready endpoint) or throws on it; Go's strict
// decoding in client-go refuses both. Here the first field of the wrong shape is named, so the
// object can be refused alone, with a message that says where it is broken.
// Every object the API server sends passes through here: each type string is parsed once, and a
// field's path is spelled only for the field at fault.
// The models' field types come from a table generated from client-node's models
// (generated/api-shapes.ts), so checking does not load client-node's generated API (docs/memory.md).
import { API_SHAPES } from './generated/api-shapes';

interface AttributeType { baseName: string; type: string }

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;
const PRIMITIVE: Record<string, string> = { string: 'string', number: 'number', boolean: 'boolean', Date: 'string' };
/** Fields whose model type is wider than the name says (targetPort: an integer or a string). */
const ANY = new Set(['any', 'object', 'IntOrString']);

/** A model type string, parsed. */
type Shape =
  | { is: 'any' }
  | { is: 'primitive'; jsType: string }
  | { is: 'list' | 'map'; of: string }
  | { is: 'model'; fields: AttributeType[] };

const shapes = new Map<string, Shape>();

function shapeOf(type: string): Shape {
  let s = shapes.get(type);
  if (!s) shapes.set(type, (s = parse(type)));
  return s;
}

function parse(type: string): Shape {
  if (ANY.has(type)) return { is: 'any' };
  if (PRIMITIVE[type]) return { is: 'primitive', jsType: PRIMITIVE[type] };
  const arr = ARRAY.exec(type);
  if (arr) return { is: 'list', of: arr[1] };
  const map = MAP.exec(type);
  if (map) return { is: 'map', of: map[1] };
  const model = Object.prototype.hasOwnProperty.call(API_SHAPES, type) ? API_SHAPES[type] : undefined;
  return model ? { is: 'model', fields: Object.entries(model).map(([baseName, t]) => ({ baseName, type: t })) } : { is: 'any' };
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** Where a problem is, innermost step first: a field name, or `[i]` / `["key"]`. */
interface Problem { steps: string[]; expected: string; got: unknown }

/** The first field of `raw` whose shape does not fit `type` ("spec.ports[0].port: expected a number, got a string"), or null. */
export function shapeProblem(raw: unknown, type: string, at = ''): string | null {
  if (shapeOf(type).is !== 'model') throw new Error(`shape check: no model ${JSON.stringify(type)} in src/k8s/generated/api-shapes.ts (its roots are in scripts/generate-api-shapes.ts)`);
  const p = check(raw, type);
  if (!p) return null;
  let path = at;
  for (let i = p.steps.length - 1; i >= 0; i--) {
    const step = p.steps[i];
    path = step.startsWith('[') || !path ? path + step : `${path}.${step}`;
  }
  // As ever: a list or a map at the top is named by an empty path, a value or an object by "(object)".
  const where = path || (p.expected === 'a list' || p.expected === 'a map' ? '' : '(object)');
  return `${where}: expected ${p.expected}, got ${kindOf(p.got)}`;
}

function check(raw: unknown, type: string): Problem | null {
  if (raw === undefined || raw === null) return null;
  const s = shapeOf(type);
  switch (s.is) {
    case 'any':
      return null;
    case 'primitive':
      return typeof raw === s.jsType ? null : { steps: [], expected: `a ${s.jsType}`, got: raw };
    case 'list':
      if (!Array.isArray(raw)) return { steps: [], expected: 'a list', got: raw };
      for (let i = 0; i < raw.length; i++) {
        const p = check(raw[i], s.of);
        if (p) return (p.steps.push(`[${i}]`), p);
      }
      return null;
    case 'map':
      if (typeof raw !== 'object' || Array.isArray(raw)) return { steps: [], expected: 'a map', got: raw };
      for (const k in raw) {
        if (!Object.prototype.hasOwnProperty.call(raw, k)) continue;
        const p = check((raw as Record<string, unknown>)[k], s.of);
        if (p) return (p.steps.push(`[${JSON.stringify(k)}]`), p);
      }
      return null;
    case 'model': {
      if (typeof raw !== 'object' || Array.isArray(raw)) return { steps: [], expected: 'an object', got: raw };
      for (const a of s.fields) {
        const p = check((raw as Record<string, unknown>)[a.baseName], a.type);
        if (p) return (p.steps.push(a.baseName), p);
      }
      return null;
    }
  }
}
