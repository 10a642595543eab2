// The applyAddresses records as RtnlSocket writes them (native/rtnl/addr_ops.h reads them), and
// the argument checks that refuse bad input before the addon sees it. Pure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADDRESS_OP_RECORD, checkLinkName, describeAddressOp, encodeAddressOps } from '../../src/native/rtnl/rtnl-encode';
import type { AddressOp } from '../../src/native';

test('records: op, family, prefix, 0, link index LE, address in network order', () => {
  const ops: AddressOp[] = [
    { op: 'add', address: { linkIndex: 7, family: 4, address: '10.96.0.10', prefixLength: 32 } },
    { op: 'delete', address: { linkIndex: 0x01020304, family: 6, address: 'fd00::a:1', prefixLength: 128 } },
  ];
  const buf = encodeAddressOps(ops);
  assert.equal(buf.length, 2 * ADDRESS_OP_RECORD);
  assert.equal(buf.subarray(0, 24).toString('hex'), '0104200007000000' + '0a60000a' + '00'.repeat(12));
  assert.equal(buf.subarray(24).toString('hex'), '0206800004030201' + 'fd00' + '0000'.repeat(5) + '000a0001');
  assert.equal(describeAddressOp(ops[1]), 'delete fd00::a:1/128 on link 16909060');
});

test('IPv4-mapped and long IPv6 forms are encoded as their 16 bytes', () => {
  const op = (address: string): AddressOp => ({ op: 'add', address: { linkIndex: 1, family: 6, address, prefixLength: 128 } });
  assert.equal(encodeAddressOps([op('::ffff:1.2.3.4')]).subarray(8).toString('hex'), '00000000000000000000ffff01020304');
  assert.deepEqual(encodeAddressOps([op('2001:DB8:0:0:0:0:0:1')]), encodeAddressOps([op('2001:db8::1')]));
});

test('the first bad op is named; link names as the kernel takes them', () => {
  const good: AddressOp = { op: 'add', address: { linkIndex: 1, family: 4, address: '10.0.0.1', prefixLength: 32 } };
  assert.throws(() => encodeAddressOps([good, { ...good, address: { ...good.address, prefixLength: 1.5 } }]), /^RangeError: ops\[1\]\.address\.prefixLength/);
  assert.throws(() => encodeAddressOps([null as unknown as AddressOp]), /^TypeError: ops\[0\]: expected an object/);
  assert.throws(() => encodeAddressOps('x' as unknown as AddressOp[]), /ops: expected an array/);
  assert.equal(checkLinkName('kube-ipvs0'), 'kube-ipvs0');
  for (const bad of ['', '.', '..', 'a b', 'a:b', 'a/b', 'x'.repeat(16), 'é'.repeat(8)]) assert.throws(() => checkLinkName(bad), RangeError, bad);
  assert.throws(() => checkLinkName(3), TypeError);
});
