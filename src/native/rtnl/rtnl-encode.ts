// RtnlSocket's argument checks and the applyAddresses buffer: one 24-byte record per operation
// (native/rtnl/addr_ops.h), so 10k addresses cross into the addon as one Buffer. Pure.
import { parseIp } from '../wire/addresses';
import type { AddressOp } from './rtnl-types';

export const ADDRESS_OP_RECORD = 24;
const OP_CODE = { add: 1, delete: 2 } as const;
const MAX_LINK_INDEX = 0x7fffffff;

/** A link name the kernel accepts (dev_valid_name): 1..15 bytes, not '.' or '..', no '/', ':' or whitespace. */
export function checkLinkName(name: unknown): string {
  if (typeof name !== 'string') throw new TypeError(`link name: expected a string, got ${typeof name}`);
  const bytes = Buffer.byteLength(name);
  if (bytes < 1 || bytes > 15) throw new RangeError(`link name '${name}': must be 1..15 bytes long, got ${bytes}`);
  if (name === '.' || name === '..' || /[/:\s\0]/.test(name)) {
    throw new RangeError(`link name '${name}': must not be '.' or '..' nor contain '/', ':', NUL or whitespace`);
  }
  return name;
}

export function checkLinkIndex(index: unknown, arg: string): number {
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 1 || index > MAX_LINK_INDEX) {
    throw new RangeError(`${arg}: expected a link index 1..${MAX_LINK_INDEX}, got ${String(index)}`);
  }
  return index;
}

/** `add 10.96.0.10/32 on link 7`: how errors name an operation. */
export function describeAddressOp(op: AddressOp): string {
  const a = op.address;
  return `${op.op} ${a.address}/${a.prefixLength} on link ${a.linkIndex}`;
}

function writeRecord(buf: Buffer, off: number, op: AddressOp, i: number): void {
  const arg = `ops[${i}]`;
  if (op === null || typeof op !== 'object') throw new TypeError(`${arg}: expected an object`);
  const code = OP_CODE[op.op as keyof typeof OP_CODE];
  if (code === undefined) throw new RangeError(`${arg}.op: expected 'add' or 'delete', got ${String(op.op)}`);
  const a = op.address;
  if (a === null || typeof a !== 'object') throw new TypeError(`${arg}.address: expected an object`);
  if (a.family !== 4 && a.family !== 6) throw new RangeError(`${arg}.address.family: expected 4 or 6, got ${String(a.family)}`);
  if (typeof a.address === 'string' && a.address.includes('%')) {
    throw new RangeError(`${arg}.address.address: '${a.address}' has a zone index; give the address alone`);
  }
  const { bytes } = parseIp(a.address, `${arg}.address.address`, a.family);
  const bits = a.family === 4 ? 32 : 128;
  if (!Number.isInteger(a.prefixLength) || a.prefixLength < 0 || a.prefixLength > bits) {
    throw new RangeError(`${arg}.address.prefixLength: expected an integer 0..${bits}, got ${String(a.prefixLength)}`);
  }
  checkLinkIndex(a.linkIndex, `${arg}.address.linkIndex`);
  buf[off] = code;
  buf[off + 1] = a.family;
  buf[off + 2] = a.prefixLength;
  buf.writeUInt32LE(a.linkIndex, off + 4);
  for (let k = 0; k < bytes.length; k++) buf[off + 8 + k] = bytes[k];
}

/** The ops as the addon's buffer; throws TypeError/RangeError naming the first bad op. */
export function encodeAddressOps(ops: readonly AddressOp[]): Buffer {
  if (!Array.isArray(ops)) throw new TypeError('ops: expected an array');
  const buf = Buffer.alloc(ops.length * ADDRESS_OP_RECORD);
  for (let i = 0; i < ops.length; i++) writeRecord(buf, i * ADDRESS_OP_RECORD, ops[i], i);
  return buf;
}
