// Name validation for tables, chains, sets and interface names. Names go into netlink strings and,
// unquoted, into nft scripts, so only names both accept are allowed.

const MAX_NAME_BYTES = 255; // NFT_NAME_MAXLEN is 256 including the NUL
// nft 1.0.6 takes a name only as a bare word of this form (no quoted names), so anything else could
// be created over netlink but never listed back into, or written as, an nft script.
const NAME = /^[A-Za-z_.][A-Za-z0-9_./-]*$/;
// Words nft 1.0.6 reads as keywords where a table, chain or set name is expected (checked against nft).
const KEYWORDS = new Set(['accept', 'drop', 'return', 'continue', 'jump', 'goto', 'queue', 'reject', 'counter',
  'masquerade', 'snat', 'dnat', 'notrack', 'log', 'limit', 'tcp', 'udp', 'ip', 'ip6', 'inet', 'th', 'meta', 'mark',
  'ct', 'fib', 'numgen', 'random', 'vmap', 'iifname', 'oifname', 'set', 'map', 'element', 'chain', 'table', 'comment',
  'flags', 'timeout', 'update', 'dynamic', 'interval', 'priority', 'policy', 'type', 'hook', 'handle', 'position',
  'index', 'size', 'sctp', 'icmp', 'icmpv6', 'arp', 'bridge', 'netdev', 'rule', 'add', 'delete', 'flush', 'create',
  'insert', 'replace', 'list', 'define', 'include']);

// Names repeat across ops (the table in every op, a chain in each of its rules): remember good ones.
const known = new Set<string>();
const KNOWN_MAX = 100_000;

export function checkName(name: unknown, arg: string): string {
  if (known.has(name as string)) return name as string;
  if (typeof name !== 'string') throw new TypeError(`${arg}: expected a name string, got ${typeof name}`);
  if (name.length === 0) throw new RangeError(`${arg}: name must not be empty`);
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw new RangeError(`${arg}: name '${name.slice(0, 40)}...' is longer than ${MAX_NAME_BYTES} bytes`);
  if (!NAME.test(name)) throw new RangeError(`${arg}: name '${name}' must be letters, digits, '_', '.', '/', '-' and start with a letter, '_' or '.'`);
  if (KEYWORDS.has(name)) throw new RangeError(`${arg}: name '${name}' is an nft keyword`);
  if (known.size >= KNOWN_MAX) known.clear();
  known.add(name);
  return name;
}

/** An interface name or prefix: 1..15 bytes (IFNAMSIZ minus the NUL), no wildcard inside. */
export function checkIfname(name: unknown, arg: string): string {
  if (typeof name !== 'string') throw new TypeError(`${arg}: expected an interface name string, got ${typeof name}`);
  if (name.length === 0 || Buffer.byteLength(name) > 15) throw new RangeError(`${arg}: interface name '${name}' must be 1..15 bytes`);
  if (/[\s"'\\/*\x00-\x1f]/.test(name)) throw new RangeError(`${arg}: interface name '${name}' contains an invalid character`);
  return name;
}

/** A name as it appears in nft script text (checkName admits only names nft takes bare). */
export function scriptName(name: string): string {
  return name;
}

const SET_NAME = /^[A-Za-z_.][A-Za-z0-9_.-]*$/;

/** Set names also appear after `@` in rule text, where nft takes only identifier characters. */
export function checkSetName(name: unknown, arg: string): string {
  checkName(name, arg);
  if (!SET_NAME.test(name as string)) throw new RangeError(`${arg}: set name '${String(name)}' must be letters, digits, '_', '.', '-' and start with a letter, '_' or '.'`);
  return name as string;
}
