// Name validation for tables, chains, sets and interface names. Names are later written unquoted
// or quoted into nft scripts and into netlink strings, so characters that would break either are refused.

const MAX_NAME_BYTES = 255; // NFT_NAME_MAXLEN is 256 including the NUL
const UNSAFE = /[\s"'\\;{}#@$\x00-\x1f\x7f]/;

export function checkName(name: unknown, arg: string): string {
  if (typeof name !== 'string') throw new TypeError(`${arg}: expected a name string, got ${typeof name}`);
  if (name.length === 0) throw new RangeError(`${arg}: name must not be empty`);
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw new RangeError(`${arg}: name '${name.slice(0, 40)}...' is longer than ${MAX_NAME_BYTES} bytes`);
  if (UNSAFE.test(name)) throw new RangeError(`${arg}: name '${name}' contains whitespace, quotes or other characters nft cannot take`);
  return name;
}

/** An interface name or prefix: 1..15 bytes (IFNAMSIZ minus the NUL), no wildcard inside. */
export function checkIfname(name: unknown, arg: string): string {
  if (typeof name !== 'string') throw new TypeError(`${arg}: expected an interface name string, got ${typeof name}`);
  if (name.length === 0 || Buffer.byteLength(name) > 15) throw new RangeError(`${arg}: interface name '${name}' must be 1..15 bytes`);
  if (/[\s"'\\/*\x00-\x1f]/.test(name)) throw new RangeError(`${arg}: interface name '${name}' contains an invalid character`);
  return name;
}

const BARE = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
// Words the nft parser would read as keywords where a name is expected.
const KEYWORDS = new Set(['accept', 'drop', 'return', 'continue', 'jump', 'goto', 'queue', 'ip', 'ip6', 'inet',
  'arp', 'bridge', 'netdev', 'table', 'chain', 'set', 'map', 'element', 'rule', 'tcp', 'udp', 'sctp',
  'meta', 'ct', 'th', 'counter', 'type', 'hook', 'priority', 'policy', 'flags', 'timeout', 'last',
  'define', 'include', 'log', 'limit', 'reject', 'masquerade', 'snat', 'dnat', 'notrack', 'comment']);

/** A name as it appears in nft script text: bare when the parser takes it as one, quoted otherwise. */
export function scriptName(name: string): string {
  return BARE.test(name) && !KEYWORDS.has(name) ? name : `"${name}"`;
}

const SET_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Set names also appear after `@` in rule text, where nft takes only identifier characters. */
export function checkSetName(name: unknown, arg: string): string {
  checkName(name, arg);
  if (!SET_NAME.test(name as string)) throw new RangeError(`${arg}: set name '${String(name)}' must be letters, digits, '_', '.', '-' and start with a letter or '_'`);
  return name as string;
}
