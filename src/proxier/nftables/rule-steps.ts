// A rule as plain data: the list of RuleBuilder calls (docs/native-api.md) that make it. The
// compiler produces these, `renderRule` prints them as nft text (tests, docs, `nft -f`), and
// tx-writer replays them on the native builder. Keeping rules as data lets the compiler stay
// pure and lets a sync compare a chain's old and new rules without touching the kernel.

export type IpFamily = 'ip' | 'ip6';
export type L4 = 'tcp' | 'udp' | 'sctp';
export type Verdict =
  | { kind: 'accept' | 'drop' | 'return' | 'continue' }
  | { kind: 'jump' | 'goto'; chain: string };
export type KeyExpr = 'saddr' | 'daddr' | 'l4proto' | 'dport' | 'sport'
  | { ip: string } | { proto: L4 } | { port: number }
  /** `numgen random mod N`: picks one of N endpoints in an endpoint map's key. */
  | { numgen: number };

export type Step =
  | { op: 'daddr' | 'saddr'; addr: string; negate?: boolean }
  | { op: 'daddrInSet' | 'saddrInSet'; set: string; negate?: boolean }
  | { op: 'l4proto'; proto: L4 }
  | { op: 'dport'; port: number }
  | { op: 'fibDaddrLocal' | 'fibSaddrLocal'; negate?: boolean }
  | { op: 'ctStateNew' }
  | { op: 'ctStatusDnat' }
  | { op: 'iifname' | 'iifnamePrefix'; name: string; negate?: boolean }
  | { op: 'markAnd'; mask: number; value: number; negate?: boolean }
  | { op: 'lookup'; parts: KeyExpr[]; set: string; negate?: boolean }
  | { op: 'vmap'; parts: KeyExpr[]; map: string }
  | { op: 'numgenMod'; mod: number; equals: number }
  | { op: 'markOr' | 'markXor'; bits: number }
  | { op: 'dynsetUpdate'; parts: KeyExpr[]; set: string; timeoutSeconds: number }
  | { op: 'dnat'; addr: string; port: number }
  /** `dnat to <key> map @map`: the map's data is the endpoint's address . port. */
  | { op: 'dnatMap'; parts: KeyExpr[]; map: string }
  | { op: 'masquerade'; fullyRandom: boolean }
  | { op: 'reject' }
  | { op: 'verdict'; verdict: Verdict }
  | { op: 'comment'; text: string };

export type RuleDef = readonly Step[];

export function hex(n: number): string {
  return '0x' + n.toString(16).padStart(8, '0');
}

function keyExprText(k: KeyExpr, family: IpFamily): string {
  if (typeof k === 'string') {
    switch (k) {
      case 'saddr': return `${family} saddr`;
      case 'daddr': return `${family} daddr`;
      case 'l4proto': return 'meta l4proto';
      case 'dport': return 'th dport';
      case 'sport': return 'th sport';
    }
  }
  if ('numgen' in k) return `numgen random mod ${k.numgen}`;
  if ('ip' in k) return k.ip;
  if ('proto' in k) return k.proto;
  return String(k.port);
}

export function keyText(parts: readonly KeyExpr[], family: IpFamily): string {
  return parts.map((p) => keyExprText(p, family)).join(' . ');
}

export function verdictText(v: Verdict): string {
  return v.kind === 'jump' || v.kind === 'goto' ? `${v.kind} ${v.chain}` : v.kind;
}

const ne = (negate?: boolean) => (negate ? '!= ' : '');

function stepText(s: Step, family: IpFamily): string {
  switch (s.op) {
    case 'daddr': case 'saddr': return `${family} ${s.op} ${ne(s.negate)}${s.addr}`;
    case 'daddrInSet': return `${family} daddr ${ne(s.negate)}@${s.set}`;
    case 'saddrInSet': return `${family} saddr ${ne(s.negate)}@${s.set}`;
    case 'l4proto': return `meta l4proto ${s.proto}`;
    case 'dport': return `th dport ${s.port}`;
    case 'fibDaddrLocal': return `fib daddr type ${ne(s.negate)}local`;
    case 'fibSaddrLocal': return `fib saddr type ${ne(s.negate)}local`;
    case 'ctStateNew': return 'ct state new';
    case 'ctStatusDnat': return 'ct status dnat';
    case 'iifname': return `iifname ${ne(s.negate)}"${s.name}"`;
    case 'iifnamePrefix': return `iifname ${ne(s.negate)}"${s.name}*"`;
    case 'markAnd': return `meta mark & ${hex(s.mask)} ${s.negate ? '!=' : '=='} ${hex(s.value)}`;
    case 'lookup': return `${keyText(s.parts, family)} ${ne(s.negate)}@${s.set}`;
    case 'vmap': return `${keyText(s.parts, family)} vmap @${s.map}`;
    case 'numgenMod': return `numgen random mod ${s.mod} == ${s.equals}`;
    case 'markOr': return `meta mark set meta mark or ${hex(s.bits)}`;
    case 'markXor': return `meta mark set meta mark xor ${hex(s.bits)}`;
    case 'dynsetUpdate': return `update @${s.set} { ${keyText(s.parts, family)} timeout ${s.timeoutSeconds}s }`;
    case 'dnat': return family === 'ip6' ? `dnat to [${s.addr}]:${s.port}` : `dnat to ${s.addr}:${s.port}`;
    case 'dnatMap': return `dnat ${family} to ${keyText(s.parts, family)} map @${s.map}`;
    case 'masquerade': return s.fullyRandom ? 'masquerade fully-random' : 'masquerade';
    case 'reject': return 'reject';
    case 'verdict': return verdictText(s.verdict);
    case 'comment': return `comment "${s.text}"`;
  }
}

/** The rule as nft prints it (comments last, as nft requires). */
export function renderRule(rule: RuleDef, family: IpFamily): string {
  const body = rule.filter((s) => s.op !== 'comment').map((s) => stepText(s, family));
  const comments = rule.filter((s) => s.op === 'comment').map((s) => stepText(s, family));
  return [...body, ...comments].join(' ');
}
