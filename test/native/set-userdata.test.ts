// Set userdata bytes equal to what nft 1.0.6 sends: a few captured with `nft --debug=mnl`, and
// every set shape of the fixtures (and more) compared with nft live.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Family, SetSpec, Transaction } from '../../src/native';
import { setUserdata } from '../../src/native/txn/set-userdata';
import { withNetns } from '../helpers/netns';
import { DATA_SETS, DATA_SETS6, DATA_SETS_INET, SETS } from './fixtures';
import { newsetUserdata } from './nft-mnl';

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
  [{ name: 'i', key: ['ipv4_addr'], map: 'ipv4_addr' }, '00 04 02 00 00 00 01 04 02 00 00 00 06 04 00 00 00 00'],
  [{ name: 'j', key: ['integer'], map: 'verdict', typeof: 'numgen random mod 3 : verdict' },
    '00 04 01 00 00 00 01 04 00 00 00 00 03 1a 00 04 17 00 00 00 01 12 00 04 01 00 00 00 01 04 03 00 00 00 02 04 00 00 00 00'
    + ' 04 08 00 04 01 00 00 00 01 00 06 04 00 00 00 00'],
];

const spaced = (hex: string) => hex.replace(/(..)(?!$)/g, '$1 ');

for (const [spec, bytes] of CASES) {
  test(`set userdata for ${spec.typeof ?? spec.key.join(' . ')}${spec.map && !spec.typeof ? ` : ${spec.map}` : ''}${spec.comment ? ' with a comment' : ''}`, () => {
    assert.equal(spaced(Buffer.from(setUserdata(spec)).toString('hex')), bytes);
  });
}

const MORE: SetSpec[] = [
  ...CASES.map(([s]) => s),
  { name: 'k', key: ['ifname', 'ifname'], typeof: 'iifname . meta oifname' },
  { name: 'l', key: ['mark'], typeof: 'meta mark', comment: 'm' },
  { name: 'm', key: ['inet_proto'], typeof: 'meta l4proto' },
  { name: 'n', key: ['inet_service'], typeof: 'th dport', interval: true },
  { name: 'o', key: ['ipv4_addr'], map: 'mark', typeof: 'ip daddr : meta mark' },
  { name: 'p', key: ['ipv4_addr', 'inet_service'], map: 'verdict', typeof: 'ip saddr . th sport : verdict' },
  { name: 'q', key: ['ipv4_addr', 'inet_proto'], map: ['ipv4_addr', 'inet_service'] },
  { name: 'r', key: ['inet_service'], map: 'inet_service', timeout: true, defaultTimeoutSeconds: 60, comment: 'timed' },
];

/** Every spec added in its family's table; names made unique so nft's dump can be matched up. */
function specsByFamily(): [Family, SetSpec][] {
  const out: [Family, SetSpec][] = [];
  const add = (f: Family, specs: SetSpec[]) => specs.forEach((s, i) => out.push([f, { ...s, name: `${f}-${i}-${s.name}` }]));
  add('ip', [...Object.values(SETS), ...Object.values(DATA_SETS), ...MORE]);
  add('ip6', Object.values(DATA_SETS6));
  add('inet', Object.values(DATA_SETS_INET));
  return out;
}

test('set userdata of every set shape equals what nft 1.0.6 sends for the script', async () => {
  const specs = specsByFamily();
  const tx = new Transaction();
  for (const f of ['ip', 'ip6', 'inet'] as const) tx.addTable(f, 'u');
  for (const [f, s] of specs) tx.addSet(f, 'u', s);
  await withNetns((ns) => {
    const nft = newsetUserdata(ns.exec('nft', ['--debug=mnl', '-f', '-'], tx.toNftScript()));
    assert.equal(nft.size, specs.length);
    for (const [, s] of specs) assert.equal(spaced(Buffer.from(setUserdata(s)).toString('hex')), spaced(nft.get(s.name)!), s.name);
  });
});
