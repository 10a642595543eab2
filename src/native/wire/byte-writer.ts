// A growing little-endian buffer: the transaction is written straight into it as it is built, so
// a million-object transaction costs a few reallocations rather than a Buffer per object.

export class ByteWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(initialSize = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  get length(): number {
    return this.pos;
  }

  /** Bytes it holds before it must grow. */
  get capacity(): number {
    return this.buf.length;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    this.resize(size);
  }

  /**
   * Grows the buffer once so that `n` more bytes fit (a large append known in advance: no doubling
   * steps), with an eighth to spare for the small writes that follow it.
   */
  reserve(n: number): void {
    const need = this.pos + n;
    if (need > this.buf.length) this.resize(need + Math.max(64 * 1024, need >> 3));
  }

  private resize(size: number): void {
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  u16(v: number): void {
    this.ensure(2);
    this.buf.writeUInt16LE(v, this.pos);
    this.pos += 2;
  }

  u32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(v >>> 0, this.pos);
    this.pos += 4;
  }

  i32(v: number): void {
    this.ensure(4);
    this.buf.writeInt32LE(v, this.pos);
    this.pos += 4;
  }

  /** An unsigned integer up to 2^53, written as u64. */
  u64(v: number): void {
    this.ensure(8);
    this.buf.writeUInt32LE(v % 0x100000000, this.pos);
    this.buf.writeUInt32LE(Math.floor(v / 0x100000000), this.pos + 4);
    this.pos += 8;
  }

  bytes(b: Uint8Array | readonly number[]): void {
    this.ensure(b.length);
    if (b instanceof Uint8Array) {
      this.buf.set(b, this.pos);
      this.pos += b.length;
      return;
    }
    for (let i = 0; i < b.length; i++) this.buf[this.pos++] = b[i];
  }

  /** u16 length then bytes. */
  blob(b: Uint8Array | readonly number[]): void {
    this.u16(b.length);
    this.bytes(b);
  }

  /** u16 byte length then UTF-8; callers validate the length beforehand. */
  str(s: string): void {
    const max = s.length * 3;
    this.ensure(2 + max);
    const n = this.buf.write(s, this.pos + 2, 'utf8');
    this.buf.writeUInt16LE(n, this.pos);
    this.pos += 2 + n;
  }

  /** Reserves a u32 to be filled later (a length); returns its position. */
  reserveU32(): number {
    this.ensure(4);
    const at = this.pos;
    this.pos += 4;
    return at;
  }

  patchU32(at: number, v: number): void {
    this.buf.writeUInt32LE(v >>> 0, at);
  }

  /** The bytes written so far (a view: valid until the next write). */
  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Drops everything written after `len` (used to undo a half-written op that failed validation). */
  truncate(len: number): void {
    this.pos = len;
  }
}
