// Renders the builder's expressions the way `nft --debug=netlink` (libnftnl) prints them, so a
// test can compare registers, lengths and data bytes with what nft itself generates.
import type { Expr } from '../../src/native/txn/expressions';

const BASES = ['link layer', 'network', 'transport', 'inner'];
const CMP = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte'];
const META_KEYS: Record<number, string> = { 3: 'mark', 6: 'iifname', 7: 'oifname', 15: 'nfproto', 16: 'l4proto' };
const CT_KEYS: Record<number, string> = { 0: 'state', 2: 'status', 11: 'proto_src', 12: 'proto_dst', 19: 'src_ip', 20: 'dst_ip', 21: 'src_ip6', 22: 'dst_ip6' };
const CT_DIRS: Record<number, string> = { 0: ' , dir original', 1: ' , dir reply', 255: '' };
const VERDICTS: Record<number, string> = { 0: 'drop', 1: 'accept', [-1]: 'continue', [-3]: 'jump', [-4]: 'goto', [-5]: 'return' };

/** Data as libnftnl prints it: host-order 32-bit words, the last one zero-padded. */
function words(data: ArrayLike<number>): string {
  const out: string[] = [];
  for (let i = 0; i < data.length; i += 4) {
    const b = Buffer.alloc(4);
    for (let k = 0; k < 4 && i + k < data.length; k++) b[k] = data[i + k];
    out.push(`0x${b.readUInt32LE(0).toString(16).padStart(8, '0')}`);
  }
  return out.join(' ');
}

export function renderExpr(e: Expr): string {
  switch (e.type) {
    case 'payload': return `[ payload load ${e.len}b @ ${BASES[e.base]} header + ${e.offset} => reg ${e.dreg} ]`;
    case 'meta': return e.set ? `[ meta set ${META_KEYS[e.key]} with reg ${e.reg} ]` : `[ meta load ${META_KEYS[e.key]} => reg ${e.reg} ]`;
    case 'cmp': return `[ cmp ${CMP[e.op]} reg ${e.sreg} ${words(e.data)} ]`;
    case 'bitwise': return `[ bitwise reg ${e.dreg} = ( reg ${e.sreg} & ${words(e.mask)} ) ^ ${words(e.xor)} ]`;
    case 'lookup': return `[ lookup reg ${e.sreg} set ${e.set}${e.dreg !== undefined ? ` dreg ${e.dreg}` : ''}${e.invert ? ' 0x1' : ''} ]`;
    case 'immediate': return `[ immediate reg ${e.dreg} ${words(e.data)} ]`;
    case 'verdict': return `[ immediate reg 0 ${VERDICTS[e.code]}${e.chain ? ` -> ${e.chain}` : ''} ]`;
    case 'nat': return `[ nat ${e.natType ? 'dnat' : 'snat'} ${e.family === 2 ? 'ip' : 'ip6'} addr_min reg ${e.regAddrMin}`
      + `${e.regProtoMin ? ` proto_min reg ${e.regProtoMin}` : ''}${e.flags ? ` flags 0x${e.flags.toString(16)}` : ''} ]`;
    case 'masq': return `[ masq${e.flags ? ` flags 0x${e.flags.toString(16)}` : ''} ]`;
    case 'reject': return `[ reject type ${e.rejectType} code ${e.code} ]`;
    case 'numgen': return `[ numgen reg ${e.dreg} = ${e.ngType ? 'random' : 'inc'} mod ${e.mod}${e.offset ? ` offset ${e.offset}` : ''} ]`;
    case 'ct': return `[ ct load ${CT_KEYS[e.key]} => reg ${e.reg}${CT_DIRS[e.ctDir]} ]`;
    case 'counter': return '[ counter pkts 0 bytes 0 ]';
    case 'fib': return `[ fib ${e.flags === 1 ? 'saddr' : 'daddr'} type => reg ${e.dreg} ]`;
    case 'dynset': return `[ dynset update reg_key ${e.sregKey} set ${e.set}${e.sregData ? ` sreg_data ${e.sregData}` : ''} timeout ${e.timeoutMs}ms ]`;
    case 'notrack': return '[ notrack ]';
  }
}

/** `nft --debug=netlink` output: the expression lines of each rule, keyed "family table chain". */
const NOOP_BYTEORDER = /^  \[ byteorder reg (\d+) = hton\(reg \1, 2, 1\) \]$/;

export function parseNftDebug(out: string): Map<string, string[][]> {
  const rules = new Map<string, string[][]>();
  let current: string[] | undefined;
  for (const line of out.split('\n')) {
    const head = /^(ip|ip6|inet) (\S+) (\S+)$/.exec(line);
    if (head) {
      current = [];
      const key = line;
      rules.set(key, [...(rules.get(key) ?? []), current]);
    } else if (current && NOOP_BYTEORDER.test(line)) {
      // nft converts the 1-byte l4proto in 2-byte units before a concatenated-range lookup: len 1 /
      // size 2 swaps nothing in the kernel (nft_byteorder_eval loops len / size times), and the
      // wire format has no byteorder expression, so the builder leaves it out.
      continue;
    } else if (current && line.startsWith('  [')) {
      current.push(line.trim());
    } else if (line.trim() === '') {
      current = undefined;
    }
  }
  return rules;
}
