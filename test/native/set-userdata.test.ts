// Set userdata bytes equal to what nft 1.0.6 sends (captured with `nft --debug=mnl`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SetSpec } from '../../src/native';
import { setUserdata } from '../../src/native/set-userdata';

const CASES: [SetSpec, string][] = [
  [{ name: 'a', key: ['ipv4_addr'] }, '00 04 02 00 00 00'],
  [{ name: 'b', key: ['ipv4_addr', 'inet_proto', 'inet_service'] }, '00 04 00 00 00 00 03 08 00 04 0d 00 00 00 01 00'],
  [{ name: 'c', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' },
    '00 04 00 00 00 00 01 04 00 00 00 00 03 08 00 04 0d 00 00 00 01 00 06 04 00 00 00 00'],
  [{ name: 'd', key: ['mark'] }, '00 04 01 00 00 00'],
  [{ name: 'e', key: ['ifname'] }, '00 04 01 00 00 00'],
  [{ name: 'f', key: ['ipv4_addr'], comment: 'hello' }, '00 04 02 00 00 00 07 06 68 65 6c 6c 6f 00'],
  [{ name: 'g', key: ['inet_service'], interval: true }, '00 04 02 00 00 00'],
  [{ name: 'h', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'ipv4_addr'], interval: true }, '00 04 00 00 00 00 03 08 00 04 0d 00 00 00 01 00'],
];

for (const [spec, bytes] of CASES) {
  test(`set userdata for ${spec.key.join(' . ')}${spec.map ? ' : verdict' : ''}${spec.comment ? ' with a comment' : ''}`, () => {
    assert.equal(Buffer.from(setUserdata(spec)).toString('hex').replace(/(..)(?!$)/g, '$1 '), bytes);
  });
}
