// Reading back what a table dump returns: key and data bytes as values (decodeValue), key type ids
// as types (keyTypesOf), each the inverse of what the builder encodes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeValue } from '../../src/native/txn/element-decode';
import { encodeElements } from '../../src/native/txn/elements';
import { keyTypeId, keyTypesOf, type NftType } from '../../src/native/txn/nft-types';

test('decodeValue reads back every key type, alone and concatenated, and a data map\'s data', () => {
  const cases: [NftType[], (string | number)[]][] = [
    [['ipv4_addr'], ['10.96.0.10']],
    [['ipv6_addr'], ['fd00:96::20']],
    [['inet_proto', 'inet_service'], ['udp', 53]],
    [['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], ['10.96.0.10', 'tcp', 80, 3]],
    [['ipv6_addr', 'ipv6_addr'], ['fd00::1', '2001:db8::ff']],
    [['mark'], [0x4000]],
    [['ifname'], ['eth0']],
  ];
  for (const [key, parts] of cases) {
    const [el] = encodeElements({ name: 's', key }, [{ key: parts }], 'el', { firstAdd: false, add: true });
    assert.deepEqual(decodeValue(key, Buffer.from(el.key as Uint8Array)), parts, key.join(' . '));
  }
  const [m] = encodeElements({ name: 'm', key: ['ipv4_addr'], map: ['ipv4_addr', 'inet_service'] }, [{ key: ['10.0.0.1'], data: ['10.244.1.5', 8080] }], 'el',
    { firstAdd: false, add: true });
  assert.deepEqual(decodeValue(['ipv4_addr', 'inet_service'], Buffer.from(m.data as Uint8Array)), ['10.244.1.5', 8080]);
});

test('decodeValue refuses bytes of another length, and types that are no value', () => {
  assert.throws(() => decodeValue(['ipv4_addr', 'inet_service'], Buffer.alloc(6)), /^RangeError: a value of 6 bytes does not hold ipv4_addr \. inet_service \(8 bytes\)$/);
  assert.throws(() => decodeValue(['ipv6_addr'], Buffer.alloc(4)), /a value of 4 bytes does not hold ipv6_addr \(16 bytes\)/);
  assert.throws(() => decodeValue([], Buffer.alloc(0)), /^RangeError: '' is not a list of value types$/);
  assert.throws(() => decodeValue(['verdict'], Buffer.alloc(0)), /'verdict' is not a list of value types/);
});

test('keyTypesOf is keyTypeId\'s inverse; an id that is not ours gives undefined', () => {
  for (const key of [['ipv4_addr'], ['inet_proto', 'inet_service'], ['ipv6_addr', 'ipv6_addr', 'inet_service', 'ipv6_addr', 'inet_service'],
    ['ipv4_addr', 'inet_proto', 'inet_service', 'integer']] as NftType[][]) {
    assert.deepEqual(keyTypesOf(keyTypeId(key)), key);
  }
  assert.equal(keyTypesOf(0), undefined);
  assert.equal(keyTypesOf(63), undefined, 'type id 63 is none of ours');
  assert.equal(keyTypesOf(1), undefined, 'a verdict is no key');
});
