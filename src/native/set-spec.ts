// SetSpec validation and the derived kernel attributes (flags, key type and length).
import { checkName } from './names';
import { isNftType, keyLength, keyTypeId, NFT_DATA_VERDICT, NFT_TYPES, NftType, SET_F } from './nft-types';

export interface SetSpec {
  name: string;
  key: NftType[];
  map?: NftType;
  interval?: boolean;
  timeout?: boolean;
  dynamic?: boolean;
  defaultTimeoutSeconds?: number;
  /** Accepted but not stored yet: the wire format has no set userdata (NFTA_SET_USERDATA). */
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
}

const MAX_KEY_BYTES = 64; // NFT_REG32_COUNT * 4: a key must fit the register file
const MAX_TIMEOUT_SECONDS = 2 ** 32; // far beyond anything sensible, and exact in ms as a double

const INTERVAL_TYPES: ReadonlySet<NftType> = new Set(['ipv4_addr', 'ipv6_addr', 'inet_proto', 'inet_service']);

export function checkTimeoutSeconds(v: unknown, arg: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`${arg}: expected an integer number of seconds`);
  if (v < 1 || v > MAX_TIMEOUT_SECONDS) throw new RangeError(`${arg}: ${v} is outside 1..${MAX_TIMEOUT_SECONDS} seconds`);
  return v;
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
  if (s.map !== undefined && s.map !== 'verdict') throw new TypeError(`${arg}.map: only 'verdict' maps are supported, got '${String(s.map)}'`);
  if (s.interval) {
    s.key.forEach((t, i) => {
      if (!INTERVAL_TYPES.has(t)) throw new RangeError(`${arg}.key[${i}]: '${t}' cannot be used in an interval set`);
    });
  }
  if (s.defaultTimeoutSeconds !== undefined) {
    checkTimeoutSeconds(s.defaultTimeoutSeconds, `${arg}.defaultTimeoutSeconds`);
    if (!s.timeout) throw new RangeError(`${arg}.defaultTimeoutSeconds: needs timeout: true`);
  }
  if (s.comment !== undefined) {
    if (typeof s.comment !== 'string') throw new TypeError(`${arg}.comment: expected a string`);
    if (Buffer.byteLength(s.comment) > 128 || /["\x00-\x1f]/.test(s.comment)) {
      throw new RangeError(`${arg}.comment: at most 128 bytes, no quotes or control characters`);
    }
  }
  return s;
}

export function setAttrs(s: SetSpec): SetAttrs {
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
    dataType: s.map ? NFT_DATA_VERDICT : 0,
    dataLen: 0,
    timeoutMs: (s.defaultTimeoutSeconds ?? 0) * 1000,
    // nft describes the fields only for concatenated intervals (the pipapo backend needs them).
    concatFieldLens: concatInterval ? s.key.map((t) => NFT_TYPES[t].len) : [],
  };
}

/** The set declaration as nft script text (inside `add set|map <family> <table> <name> { ... }`). */
export function setScriptBody(s: SetSpec): string {
  const parts = [`type ${s.key.join(' . ')}${s.map ? ` : ${s.map}` : ''};`];
  const flags: string[] = [];
  if (s.interval) flags.push('interval');
  if (s.timeout) flags.push('timeout');
  if (s.dynamic) flags.push('dynamic');
  if (flags.length) parts.push(`flags ${flags.join(',')};`);
  if (s.defaultTimeoutSeconds !== undefined) parts.push(`timeout ${s.defaultTimeoutSeconds}s;`);
  // No comment: the wire format cannot carry set userdata yet, and the script must describe the
  // same ruleset as the netlink commit.
  return `{ ${parts.join(' ')} }`;
}
