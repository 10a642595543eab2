// NFTA_SET_USERDATA as nft 1.0.6 writes it (libnftnl udata TLVs: u8 type, u8 len, value). nft
// needs it to print elements of host-order keys (mark, ifname) and to show set comments.
// Not sent yet: ADD_SET in docs/wire-format.md has no userdata field (see docs/native-api.md).
import { NftType } from './nft-types';
import { SetSpec } from './set-spec';

const UDATA = { keyByteorder: 0, dataByteorder: 1, keyTypeof: 3, dataInterval: 6, comment: 7 } as const;
const BYTEORDER = { invalid: 0, host: 1, big: 2 } as const;
const HOST_ORDER: ReadonlySet<NftType> = new Set(['mark', 'ifname']);
// What nft records as the "typeof" of a key declared as a concatenation of types (captured from nft).
const CONCAT_TYPEOF = [0x00, 0x04, 0x0d, 0x00, 0x00, 0x00, 0x01, 0x00];

function u32Tlv(type: number, v: number): number[] {
  return [type, 4, v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24];
}

export function setUserdata(s: SetSpec): number[] {
  const concat = s.key.length > 1;
  const keyOrder = concat ? BYTEORDER.invalid : HOST_ORDER.has(s.key[0]) ? BYTEORDER.host : BYTEORDER.big;
  const out = u32Tlv(UDATA.keyByteorder, keyOrder);
  if (s.map) out.push(...u32Tlv(UDATA.dataByteorder, BYTEORDER.invalid));
  if (concat) out.push(UDATA.keyTypeof, CONCAT_TYPEOF.length, ...CONCAT_TYPEOF);
  if (s.map) out.push(...u32Tlv(UDATA.dataInterval, 0));
  if (s.comment !== undefined) {
    const b = Buffer.from(s.comment);
    out.push(UDATA.comment, b.length + 1, ...b, 0);
  }
  return out;
}
