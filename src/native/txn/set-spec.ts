// SetSpec validation and the derived kernel attributes (flags, key type and length).
import { checkName } from './names';
import { parseTypeof } from './set-typeof';
import { isNftType, keyLength, keyTypeId, NFT_DATA_VERDICT, NFT_TYPES, NftType, SET_F } from './nft-types';

export interface SetSpec {
  name: string;
  key: NftType[];
  /** 'verdict' for a verdict map; a data type or a concatenation of them for a data map. */
  map?: NftType | NftType[];
  interval?: boolean;
  timeout?: boolean;
  dynamic?: boolean;
  defaultTimeoutSeconds?: number;
  /**
   * The most elements the set may hold (NFTA_SET_DESC_SIZE). When full, the kernel refuses new
   * elements: ENFILE for a sync's add, and a `dynset` update from the packet path stops its rule.
   */
  size?: number;
  /** The type as nft `typeof` expressions (see set-typeof.ts): scripts say `typeof ...`, and the
   *  set userdata carries them so nft can list sets it has no type name for (numgen keys). */
  typeof?: string;
  /** Stored in the set userdata, as nft does. */
  comment?: string;
}

export interface SetAttrs {
  flags: number;
  keyType: number;
  keyLen: number;
  dataType: number;
  dataLen: number;
  timeoutMs: number;
  concatFieldLens: number[];
  /** NFTA_SET_DESC_SIZE; 0 = no limit. */
  size: number;
}

const MAX_KEY_BYTES = 64; // NFT_REG32_COUNT * 4: a key must fit the register file
const MAX_TIMEOUT_SECONDS = 2 ** 32; // far beyond anything sensible, and exact in ms as a double

const INTERVAL_TYPES: ReadonlySet<NftType> = new Set(['ipv4_addr', 'ipv6_addr', 'inet_proto', 'inet_service']);

export function checkTimeoutSeconds(v: unknown, arg: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`${arg}: expected an integer number of seconds`);
  if (v < 1 || v > MAX_TIMEOUT_SECONDS) throw new RangeError(`${arg}: ${v} is outside 1..${MAX_TIMEOUT_SECONDS} seconds`);
  return v;
}

/** The data types of a data map; undefined for a plain set or a verdict map. */
export function mapData(s: SetSpec): NftType[] | undefined {
  if (s.map === undefined || s.map === 'verdict') return undefined;
  return Array.isArray(s.map) ? s.map : [s.map];
}

function checkMap(map: unknown, arg: string): void {
  if (map === undefined || map === 'verdict') return;
  const types: unknown[] = Array.isArray(map) ? map : [map];
  if (types.length === 0) throw new TypeError(`${arg}: expected 'verdict', a data type or a non-empty array of data types`);
  types.forEach((t, i) => {
    if (!isNftType(t) || t === 'verdict') throw new TypeError(`${arg}${Array.isArray(map) ? `[${i}]` : ''}: '${String(t)}' is not a data type`);
  });
  if (types.length > 5) throw new RangeError(`${arg}: nft can name at most 5 concatenated types (32-bit type id)`);
  if (keyLength(types as NftType[]) > MAX_KEY_BYTES) throw new RangeError(`${arg}: the data is longer than ${MAX_KEY_BYTES} bytes`);
}

function typesText(t: NftType | NftType[]): string {
  return Array.isArray(t) ? t.join(' . ') : t;
}

/** A set nft has to read from a script: `integer` exists only as a typeof (e.g. numgen), never as a type name. */
export function checkScriptable(s: SetSpec, arg: string): void {
  if (s.typeof !== undefined) return;
  if (s.key.includes('integer') || mapData(s)?.includes('integer')) {
    throw new RangeError(`${arg}.typeof: a set with an 'integer' part needs typeof text (nft cannot read 'type ... integer')`);
  }
}

export function checkSetSpec(spec: unknown, arg = 'set'): SetSpec {
  if (typeof spec !== 'object' || spec === null) throw new TypeError(`${arg}: expected a SetSpec object`);
  const s = spec as SetSpec;
  checkName(s.name, `${arg}.name`);
  if (!Array.isArray(s.key) || s.key.length === 0) throw new TypeError(`${arg}.key: expected a non-empty array of type names`);
  if (s.key.length > 16) throw new RangeError(`${arg}.key: at most 16 concatenated fields`);
  s.key.forEach((t, i) => {
    if (!isNftType(t) || t === 'verdict') throw new TypeError(`${arg}.key[${i}]: '${String(t)}' is not a key type`);
  });
  if (keyLength(s.key) > MAX_KEY_BYTES) throw new RangeError(`${arg}.key: the key is longer than ${MAX_KEY_BYTES} bytes`);
  if (s.key.length > 5) throw new RangeError(`${arg}.key: nft can name at most 5 concatenated types (32-bit type id)`);
  checkMap(s.map, `${arg}.map`);
  if (s.typeof !== undefined) parseTypeof(s.typeof, s.key, mapData(s) ?? (s.map ? 'verdict' : undefined), `${arg}.typeof`);
  if (s.interval) {
    s.key.forEach((t, i) => {
      if (!INTERVAL_TYPES.has(t)) throw new RangeError(`${arg}.key[${i}]: '${t}' cannot be used in an interval set`);
    });
  }
  if (s.defaultTimeoutSeconds !== undefined) {
    checkTimeoutSeconds(s.defaultTimeoutSeconds, `${arg}.defaultTimeoutSeconds`);
    if (!s.timeout) throw new RangeError(`${arg}.defaultTimeoutSeconds: needs timeout: true`);
  }
  if (s.size !== undefined && (!Number.isInteger(s.size) || s.size < 1 || s.size > 0xffffffff)) {
    throw new RangeError(`${arg}.size: ${String(s.size)} is not an element count in 1..${0xffffffff}`);
  }
  if (s.comment !== undefined) {
    if (typeof s.comment !== 'string') throw new TypeError(`${arg}.comment: expected a string`);
    if (Buffer.byteLength(s.comment) > 128 || /["\x00-\x1f]/.test(s.comment)) {
      throw new RangeError(`${arg}.comment: at most 128 bytes, no quotes or control characters`);
    }
  }
  return s;
}

/** Specs that passed checkSetSpec and cannot change: frozen, with their arrays. */
const checkedSpecs = new WeakSet<SetSpec>();

/** Whether a spec can no longer change (its strings and numbers never can). */
export function isFrozenSpec(s: SetSpec): boolean {
  return Object.isFrozen(s) && Object.isFrozen(s.key) && (!Array.isArray(s.map) || Object.isFrozen(s.map));
}

/** checkSetSpec, done once for a spec that cannot change (a set declared in every partial sync). */
export function checkSetSpecOnce(spec: unknown, arg = 'set'): SetSpec {
  if (typeof spec === 'object' && spec !== null && checkedSpecs.has(spec as SetSpec)) return spec as SetSpec;
  const s = checkSetSpec(spec, arg);
  if (isFrozenSpec(s)) checkedSpecs.add(s);
  return s;
}

export function setAttrs(s: SetSpec): SetAttrs {
  const data = mapData(s);
  const concatInterval = !!s.interval && s.key.length > 1;
  let flags = 0;
  if (s.interval) flags |= SET_F.interval;
  if (s.map) flags |= SET_F.map;
  if (s.timeout) flags |= SET_F.timeout;
  if (s.dynamic) flags |= SET_F.eval;
  if (concatInterval) flags |= SET_F.concat;
  return {
    flags,
    keyType: keyTypeId(s.key),
    keyLen: keyLength(s.key),
    // Data types and lengths follow the key rule (nft computes both the same way).
    dataType: data ? keyTypeId(data) : s.map ? NFT_DATA_VERDICT : 0,
    dataLen: data ? keyLength(data) : 0,
    timeoutMs: (s.defaultTimeoutSeconds ?? 0) * 1000,
    // nft describes the fields only for concatenated intervals (the pipapo backend needs them).
    concatFieldLens: concatInterval ? s.key.map((t) => NFT_TYPES[t].len) : [],
    size: s.size ?? 0,
  };
}

/** The set declaration as nft script text (inside `add set|map <family> <table> <name> { ... }`). */
export function setScriptBody(s: SetSpec): string {
  const parts = [s.typeof !== undefined ? `typeof ${s.typeof};` : `type ${s.key.join(' . ')}${s.map ? ` : ${typesText(s.map)}` : ''};`];
  const flags: string[] = [];
  if (s.interval) flags.push('interval');
  if (s.timeout) flags.push('timeout');
  if (s.dynamic) flags.push('dynamic');
  if (flags.length) parts.push(`flags ${flags.join(',')};`);
  if (s.defaultTimeoutSeconds !== undefined) parts.push(`timeout ${s.defaultTimeoutSeconds}s;`);
  if (s.size !== undefined) parts.push(`size ${s.size};`);
  if (s.comment !== undefined) parts.push(`comment "${s.comment}";`);
  return `{ ${parts.join(' ')} }`;
}
