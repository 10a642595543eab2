// Reads `nft --debug=mnl` output (libmnl's message dump): the set userdata nft sends with each
// NEWSET, keyed by set name, so tests can compare our bytes with nft's own.

const NEWSET = 0x0a00 | 9; // NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWSET
const NFTA_SET_NAME = 2;
const NFTA_SET_USERDATA = 13;

/** Set name -> NFTA_SET_USERDATA bytes as hex, for every NEWSET nft sent. */
export function newsetUserdata(mnlDump: string): Map<string, string> {
  const lines = mnlDump.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const out = new Map<string, string>();
  let type = -1;
  let name: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const msgType = /^\| (\d{5}) \| /.exec(lines[i]);
    if (msgType) {
      type = Number(msgType[1]);
      name = undefined;
      continue;
    }
    const attr = /^\|(\d{5})\|(..)\|(\d{5})\|/.exec(lines[i]);
    if (type !== NEWSET || !attr || attr[2].startsWith('N')) continue;
    const attrType = Number(attr[3]);
    // NFTA_SET_DESC's nested attributes reuse type 2: only the first name (always before it) counts.
    if (attrType === NFTA_SET_NAME ? name !== undefined : attrType !== NFTA_SET_USERDATA) continue;
    const bytes = dataAfter(lines, i + 1, Number(attr[1]) - 4);
    if (attrType === NFTA_SET_NAME) name = bytes.subarray(0, bytes.indexOf(0)).toString();
    else if (name !== undefined) out.set(name, bytes.toString('hex'));
  }
  return out;
}

/** The attribute's payload: the data lines that follow its header, 4 bytes a line. */
function dataAfter(lines: string[], from: number, len: number): Buffer {
  const bytes: number[] = [];
  for (let j = from; bytes.length < len; j++) {
    const m = /^\| ((?:[0-9a-f]{2} ){4}) \|/.exec(lines[j]);
    if (!m) throw new Error(`nft --debug=mnl: expected a data line at ${j}: ${lines[j]}`);
    bytes.push(...m[1].trim().split(' ').map((h) => parseInt(h, 16)));
  }
  return Buffer.from(bytes.slice(0, len));
}
