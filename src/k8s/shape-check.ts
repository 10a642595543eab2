// Checks a raw API object against client-node's model types before it is deserialised. The
// deserialiser coerces what it does not expect (a string where an object belongs becomes an empty
// object, so `conditions: "ready"` would read as a ready endpoint) or throws on it; Go's strict
// decoding in client-go refuses both. Here the first field of the wrong shape is named, so the
// object can be refused alone, with a message that says where it is broken.
// Every object the API server sends passes through here (88k objects in a 44k-Service start-up), so
// an object is first run through a validator compiled once per type, which only says yes or no; the
// walk that finds and spells the first field at fault runs only for an object the validator refused.
// The models' field types come from a table generated from client-node's models
// (generated/api-shapes.ts), so checking does not load client-node's generated API (docs/memory.md).
import { API_SHAPES } from './generated/api-shapes';
import { UNREAD_MEMBERS } from './kept-fields';

/** Not checked: nothing reads them, and a list page loses them before it is parsed (drop-members.ts). */
const UNCHECKED = new Set(UNREAD_MEMBERS);

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
  if (!model) return { is: 'any' };
  return { is: 'model', fields: Object.entries(model).filter(([baseName]) => !UNCHECKED.has(baseName)).map(([baseName, t]) => ({ baseName, type: t })) };
}

function modelType(type: string): string {
  if (shapeOf(type).is !== 'model') throw new Error(`shape check: no model ${JSON.stringify(type)} in src/k8s/generated/api-shapes.ts (its roots are in scripts/generate-api-shapes.ts)`);
  return type;
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** Where a problem is, innermost step first: a field name, or `[i]` / `["key"]`. */
interface Problem { steps: string[]; expected: string; got: unknown }

/** The first field of `raw` whose shape does not fit `type` ("spec.ports[0].port: expected a number, got a string"), or null. */
export function shapeProblem(raw: unknown, type: string, at = ''): string | null {
  return fitsShape(raw, type) ? null : describeProblem(raw, type, at);
}

/** The compiled validator's answer: true exactly when describeProblem() finds nothing. */
export function fitsShape(raw: unknown, type: string): boolean {
  return validatorOf(modelType(type))(raw);
}

/** The walk that names the first field at fault (slow: only for objects the validator refused). */
export function describeProblem(raw: unknown, type: string, at = ''): string | null {
  const p = check(raw, modelType(type));
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

/** Whether a value fits its type: exactly when check() finds no problem in it. */
type Validator = (raw: unknown) => boolean;

const validators = new Map<string, Validator>();

/** The type's validator; a model's fields get theirs when first met, so recursive types terminate. */
function validatorOf(type: string): Validator {
  let v = validators.get(type);
  if (!v) validators.set(type, (v = compile(shapeOf(type))));
  return v;
}

const ok: Validator = () => true;

function compile(s: Shape): Validator {
  switch (s.is) {
    case 'any':
      return ok;
    case 'primitive': {
      const t = s.jsType;
      return (raw) => raw === undefined || raw === null || typeof raw === t;
    }
    case 'list': {
      const of = s.of;
      return (raw) => {
        if (raw === undefined || raw === null) return true;
        if (!Array.isArray(raw)) return false;
        const each = validatorOf(of);
        for (let i = 0; i < raw.length; i++) if (!each(raw[i])) return false;
        return true;
      };
    }
    case 'map': {
      const of = s.of;
      return (raw) => {
        if (raw === undefined || raw === null) return true;
        if (typeof raw !== 'object' || Array.isArray(raw)) return false;
        const each = validatorOf(of);
        for (const k in raw) {
          if (Object.prototype.hasOwnProperty.call(raw, k) && !each((raw as Record<string, unknown>)[k])) return false;
        }
        return true;
      };
    }
    case 'model':
      return modelValidator(s.fields);
  }
}

/**
 * A model object. One parsed from JSON (a plain object: own, enumerable fields only) has a few of
 * its model's many fields, so the fields it has are looked up among the model's; the others are
 * absent and fit, and fields the model lacks are not checked, as in check(). Any other object is
 * checked field by field of the model, as check() reads it.
 */
function modelValidator(fields: readonly AttributeType[]): Validator {
  let byName: Map<string, Validator> | undefined;
  return (raw) => {
    if (raw === undefined || raw === null) return true;
    if (typeof raw !== 'object' || Array.isArray(raw)) return false;
    byName ??= new Map(fields.map((a) => [a.baseName, validatorOf(a.type)]));
    const r = raw as Record<string, unknown>;
    if (Object.getPrototypeOf(r) !== Object.prototype) {
      for (const a of fields) if (!byName.get(a.baseName)!(r[a.baseName])) return false;
      return true;
    }
    for (const k in r) {
      const v = byName.get(k);
      if (v !== undefined && !v(r[k])) return false;
    }
    return true;
  };
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
