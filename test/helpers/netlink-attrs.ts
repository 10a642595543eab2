// Netlink attributes built by hand, for tests that feed the addon's parsers datagrams the kernel
// does not send on demand: a header (length, type, little-endian as on x86 and arm64) and the
// payload padded to 4 bytes.
export function attr(type: number, payload: Buffer): Buffer {
  const len = 4 + payload.length;
  const out = Buffer.alloc((len + 3) & ~3);
  out.writeUInt16LE(len, 0);
  out.writeUInt16LE(type, 2);
  payload.copy(out, 4);
  return out;
}

/** An attribute holding one big-endian u32, as netfilter's counters and ids are sent. */
export function be32(type: number, v: number): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt32BE(v);
  return attr(type, p);
}
