// IPVS ops -> the one Buffer an apply call hands the addon (docs/wire-format.md, "The IPVS op
// buffer"). Each op is checked as it is written, and a bad one is a TypeError/RangeError naming
// its index and field (`ops[3].dest.weight: ...`); the addon's decoder checks every byte again.
import { parseIp } from '../wire/addresses';
import { ByteWriter } from '../wire/byte-writer';
import {
  IPVS_SVC_F_HASHED, IpvsDestination, IpvsDestKey, IpvsForward, IpvsOp, IpvsProtocol, IpvsService, IpvsServiceKey,
} from './ipvs-types';

export const IPVS_OPS_MAGIC = 0x4956504b; // "KPVI" little-endian
export const IPVS_OPS_VERSION = 1;

export const IPVS_OPCODE = {
  addService: 1, editService: 2, deleteService: 3, addDest: 4, editDest: 5, deleteDest: 6,
} as const satisfies Record<IpvsOp['op'], number>;

export const IPVS_PROTOCOL_CODE: Record<IpvsProtocol, number> = { TCP: 6, UDP: 17, SCTP: 132 };
/** IP_VS_CONN_F_MASQ .. IP_VS_CONN_F_BYPASS. */
export const IPVS_FORWARD_CODE: Record<IpvsForward, number> = { masq: 0, local: 1, tunnel: 2, route: 3, bypass: 4 };

/** IP_VS_SCHEDNAME_MAXLEN - 1. */
const MAX_SCHEDULER = 15;

function int(v: unknown, field: string, lo: number, hi: number): number {
  if (typeof v !== 'number') throw new TypeError(`${field}: expected a number, got ${typeof v}`);
  if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`${field}: ${v} is not an integer in ${lo}..${hi}`);
  return v;
}

function oneOf<T extends string>(v: unknown, field: string, table: Record<T, number>): number {
  if (typeof v !== 'string' || !Object.prototype.hasOwnProperty.call(table, v)) {
    throw new TypeError(`${field}: expected one of ${Object.keys(table).join(', ')}, got ${String(v)}`);
  }
  return table[v as T];
}

function family(v: unknown, field: string): 4 | 6 {
  if (v !== 4 && v !== 6) throw new TypeError(`${field}: expected 4 or 6, got ${String(v)}`);
  return v;
}

function writeAddr(w: ByteWriter, fam: 4 | 6, address: unknown, field: string): void {
  const { bytes } = parseIp(address, field, fam);
  w.u8(fam);
  w.bytes(bytes);
}

function writeServiceKey(w: ByteWriter, k: IpvsServiceKey, at: string): 4 | 6 {
  if (typeof k !== 'object' || k === null) throw new TypeError(`${at}: expected an object`);
  const fam = family(k.family, `${at}.family`);
  w.u8(oneOf(k.protocol, `${at}.protocol`, IPVS_PROTOCOL_CODE));
  w.u16(int(k.port, `${at}.port`, 0, 65535));
  writeAddr(w, fam, k.address, `${at}.address`);
  return fam;
}

function writeServiceBody(w: ByteWriter, s: IpvsService, fam: 4 | 6, at: string): void {
  const sched = s.scheduler;
  if (typeof sched !== 'string') throw new TypeError(`${at}.scheduler: expected a string, got ${typeof sched}`);
  if (!/^[\x21-\x7e]{1,15}$/.test(sched)) {
    throw new RangeError(`${at}.scheduler: '${sched}' is not 1..${MAX_SCHEDULER} printable ASCII characters`);
  }
  w.u8(sched.length);
  w.bytes(Buffer.from(sched, 'latin1'));
  // HASHED is the kernel's own mark (ipvs-types.ts): ignored when given.
  w.u32((int(s.flags, `${at}.flags`, 0, 0xffffffff) & ~IPVS_SVC_F_HASHED) >>> 0);
  w.u32(int(s.timeout, `${at}.timeout`, 0, 0xffffffff));
  w.u8(fam === 4 ? int(s.prefixLength, `${at}.prefixLength`, 0, 32) : int(s.prefixLength, `${at}.prefixLength`, 1, 128));
}

function writeDestKey(w: ByteWriter, d: IpvsDestKey & { family?: unknown }, fallback: 4 | 6, at: string): void {
  if (typeof d !== 'object' || d === null) throw new TypeError(`${at}: expected an object`);
  w.u16(int(d.port, `${at}.port`, 0, 65535));
  const fam = d.family === undefined ? fallback : family(d.family, `${at}.family`);
  writeAddr(w, fam, d.address, `${at}.address`);
}

function writeDestBody(w: ByteWriter, d: IpvsDestination, at: string): void {
  w.u32(int(d.weight, `${at}.weight`, 0, 0x7fffffff));
  w.u8(oneOf(d.forward, `${at}.forward`, IPVS_FORWARD_CODE));
}

function writeOp(w: ByteWriter, op: IpvsOp, at: string): void {
  if (typeof op !== 'object' || op === null) throw new TypeError(`${at}: expected an op object`);
  w.u8(oneOf(op.op, `${at}.op`, IPVS_OPCODE));
  const fam = writeServiceKey(w, op.service, `${at}.service`);
  switch (op.op) {
    case 'addService': case 'editService': return writeServiceBody(w, op.service, fam, `${at}.service`);
    case 'deleteService': return;
    case 'addDest': case 'editDest':
      writeDestKey(w, op.dest, fam, `${at}.dest`);
      return writeDestBody(w, op.dest, `${at}.dest`);
    case 'deleteDest': return writeDestKey(w, op.dest, fam, `${at}.dest`);
  }
}

/** The ops as one buffer; throws TypeError/RangeError naming `ops[i].field` for a bad op. */
export function serializeIpvsOps(ops: readonly IpvsOp[]): Buffer {
  if (!Array.isArray(ops)) throw new TypeError('ops: expected an array');
  const w = new ByteWriter(Math.max(1024, ops.length * 48));
  w.u32(IPVS_OPS_MAGIC);
  w.u16(IPVS_OPS_VERSION);
  w.u16(0);
  w.u32(ops.length);
  for (let i = 0; i < ops.length; i++) writeOp(w, ops[i], `ops[${i}]`);
  return w.view();
}

/** A lone service key (dumpDestinations' argument). */
export function serializeIpvsServiceKey(key: IpvsServiceKey): Buffer {
  const w = new ByteWriter(32);
  writeServiceKey(w, key, 'service');
  return Buffer.from(w.view());
}
