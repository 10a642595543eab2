// Nft.getElements and Nft.dumpChain: elements by key and one chain's rules, read from a real
// kernel in a fresh namespace, and FakeNft giving the same answers to the same calls.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NetlinkError, Nft, Transaction, rule, type SetSpec } from '../../src/native';
import { FakeKernel, FakeNft } from '../../src/native/testing';
import type { ChainRule, ExpectedChain } from '../../src/native/nft/lookups';
import { decodeValue } from '../../src/native/txn/element-decode';
import { createNetns, type TestNetns } from '../helpers/netns';

const T = 't';
const VIP: SetSpec = { name: 'vips', key: ['ipv4_addr', 'inet_proto', 'inet_service'] };
const VMAP: SetSpec = { name: 'dispatch', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' };
const EPS: SetSpec = {
  name: 'endpoints-2', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv4_addr', 'inet_service'],
  typeof: 'ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport',
};
const AFF: SetSpec = { name: 'affinity', key: ['ipv4_addr', 'ipv4_addr', 'inet_service', 'ipv4_addr', 'inet_service'], timeout: true, dynamic: true };
const RANGES: SetSpec = { name: 'ranges', key: ['ipv4_addr'], interval: true };
const ALLOW: SetSpec = { name: 'allow', key: ['ipv6_addr', 'inet_proto', 'inet_service', 'ipv6_addr'], interval: true };

/** An affinity chain as the nftables proxier writes one: lookups, records with DNAT, a masquerade mark, a comment. */
function chainRules(endpoint: string) {
  const key = ['saddr', { ip: '172.30.0.1' }, { port: 80 }, { ip: endpoint }, { port: 8080 }] as const;
  return [
    rule('ip').daddr('172.30.0.1').l4proto('tcp').dport(80).markOr(0x4000).comment('masquerade').build(),
    rule('ip').lookup([...key], AFF.name).l4proto('tcp').dynsetUpdate([...key], AFF.name, 10800).dnat(endpoint, 8080).build(),
    rule('ip').numgenMod(2, 0).l4proto('tcp').dnat(endpoint, 8080).build(),
    rule('ip').verdict({ kind: 'goto', chain: 'other' }).build(),
  ];
}

function setup(): Transaction {
  const tx = new Transaction().addTable('ip', T).addChain('ip', T, { name: 'other' }).addChain('ip', T, { name: 'svc' });
  for (const s of [VIP, VMAP, EPS, AFF, RANGES]) tx.addSet('ip', T, s);
  tx.addTable('ip6', T).addSet('ip6', T, ALLOW);
  tx.addElements('ip6', T, ALLOW.name, [{ key: ['2001:db8::7', 'tcp', 443, '2001:db8:1::/48'] }, { key: ['2001:db8::7', 'tcp', 443, 'fd00::5'] }]);
  tx.addElements('ip', T, VIP.name, [{ key: ['172.30.0.1', 'tcp', 80] }, { key: ['172.30.0.2', 'udp', 53] }]);
  tx.addElements('ip', T, VMAP.name, [{ key: ['172.30.0.1', 'tcp', 80], verdict: { kind: 'goto', chain: 'svc' } }]);
  tx.addElements('ip', T, EPS.name, [
    { key: ['172.30.0.1', 'tcp', 80, 0], data: ['10.1.0.1', 8080] }, { key: ['172.30.0.1', 'tcp', 80, 1], data: ['10.1.0.2', 8080] },
  ]);
  for (const r of chainRules('10.1.0.1')) tx.addRule('ip', T, 'svc', r);
  return tx;
}

const expected = (endpoint: string): ExpectedChain => ({ rules: chainRules(endpoint), sets: [AFF] });
const comparable = (rules: ChainRule[]) => rules.map(({ exprs, jumps, matches }) => ({ exprs, jumps, matches }));

describe('getElements and dumpChain', () => {
  let ns: TestNetns;
  let nft: Nft;
  let fake: FakeNft;
  before(async () => {
    ns = createNetns('kpn-lookup');
    nft = Nft.open({ netns: ns.path });
    await nft.commit(setup());
    fake = new FakeKernel().open();
    await fake.commit(setup());
  });
  after(() => {
    nft?.close();
    ns?.destroy();
  });

  it('finds a present key and reports an absent one', async () => {
    const keys = [['172.30.0.2', 'udp', 53], ['172.30.0.9', 'tcp', 80], ['172.30.0.1', 'tcp', 80]];
    const got = await nft.getElements('ip', T, VIP, keys);
    assert.deepEqual(got.map((l) => l.key), keys);
    assert.deepEqual(got.map((l) => l.element !== undefined), [true, false, true]);
    assert.equal(got[0].element!.key.toString('hex'), 'ac1e0002' + '11000000' + '00350000');
    assert.equal(got[0].element!.verdict, undefined);
    assert.equal(got[0].element!.data, undefined);
  });

  it('returns a data map element\'s data and a verdict map element\'s verdict', async () => {
    const eps = await nft.getElements('ip', T, EPS, [['172.30.0.1', 'tcp', 80, 1], ['172.30.0.1', 'tcp', 80, 2]]);
    assert.deepEqual(decodeValue(['ipv4_addr', 'inet_service'], eps[0].element!.data!), ['10.1.0.2', 8080]);
    assert.equal(eps[1].element, undefined);
    const vm = await nft.getElements('ip', T, VMAP, [['172.30.0.1', 'tcp', 80]]);
    assert.deepEqual(vm[0].element!.verdict, { kind: 'goto', chain: 'svc' });
  });

  it('refuses a set that does not exist with ENOENT naming it', async () => {
    const wrong = { ...VIP, name: 'no-such-set' };
    for (const handle of [nft, fake]) {
      await assert.rejects(handle.getElements('ip', T, wrong, [['172.30.0.1', 'tcp', 80]]), (e: unknown) => {
        assert.ok(e instanceof NetlinkError);
        assert.equal(e.code, 'ENOENT');
        assert.match(e.message, /no-such-set/);
        return true;
      });
    }
  });

  it('looks a concatenated interval set\'s element up by a point of its ranges: start and end as held', async () => {
    const hex = (b?: Buffer) => b?.toString('hex');
    const answers = [];
    for (const handle of [nft, fake]) {
      const found = await handle.getElements('ip6', T, ALLOW, [
        ['2001:db8::7', 'tcp', 443, '2001:db8:1::/48'], ['2001:db8::7', 'tcp', 443, '2001:db8:1:2::/64'],
        ['2001:db8::7', 'tcp', 443, 'fd00::5'], ['2001:db8::7', 'tcp', 443, 'fd00::6'], ['2001:db8::7', 'udp', 443, '2001:db8:1::/48'],
      ]);
      const held = found.map((f) => f.element && `${hex(f.element.key)}-${hex(f.element.keyEnd)}`);
      assert.equal(held[0], held[1], 'a range inside the held one finds it');
      assert.ok(held[0]!.endsWith('20010db80001ffffffffffffffffffff'), held[0]);
      assert.ok(held[2] !== undefined && held[2] !== held[0]);
      assert.deepEqual([held[3], held[4]], [undefined, undefined], 'a point outside every range, another protocol: none');
      answers.push(held);
    }
    assert.deepEqual(answers[0], answers[1], 'the fake kernel answers as the kernel');
  });

  it('checks keys before asking the kernel', async () => {
    for (const handle of [nft, fake]) {
      await assert.rejects(handle.getElements('ip', T, VIP, [['172.30.0.1', 'tcp', 70000]]), /^RangeError: keys\[0\]\[2\]: port 70000/);
      await assert.rejects(handle.getElements('ip', T, VIP, [['172.30.0.1', 'tcp']]), /keys\[0\]: set 'vips' has 3 key part\(s\)/);
      await assert.rejects(handle.getElements('ip', T, VIP, []), /keys: expected 1\.\.65536 keys, got 0/);
      await assert.rejects(handle.getElements('ip', T, RANGES, [['10.0.0.1']]), /keys\[0\]: set 'ranges' has intervals/);
    }
  });

  it('dumps one chain and compares it with the expected rules', async () => {
    const rules = await nft.dumpChain('ip', T, 'svc', expected('10.1.0.1'));
    assert.equal(rules.length, 4);
    assert.deepEqual(rules.map((r) => r.matches), [true, true, true, true]);
    assert.deepEqual(rules[3].jumps, ['other']);
    const other = await nft.dumpChain('ip', T, 'svc', expected('10.1.0.7'));
    assert.deepEqual(other.map((r) => r.matches), [true, false, false, true]);
    const plain = await nft.dumpChain('ip', T, 'svc');
    assert.ok(plain.every((r) => r.matches === undefined));
  });

  it('refuses a chain that does not exist with ENOENT naming it', async () => {
    await assert.rejects(nft.dumpChain('ip', T, 'nope'), (e: unknown) => e instanceof NetlinkError && e.code === 'ENOENT' && /nope/.test(e.message));
    await assert.rejects(fake.dumpChain('ip', T, 'nope'), (e: unknown) => e instanceof NetlinkError && e.code === 'ENOENT' && /nope/.test(e.message));
  });

  it('the fake kernel answers the same calls the same way', async () => {
    const lookups: [SetSpec, (string | number)[][]][] = [
      [VIP, [['172.30.0.2', 'udp', 53], ['172.30.0.9', 'tcp', 80]]],
      [VMAP, [['172.30.0.1', 'tcp', 80], ['172.30.0.2', 'udp', 53]]],
      [EPS, [['172.30.0.1', 'tcp', 80, 0], ['172.30.0.1', 'tcp', 80, 1], ['172.30.0.1', 'tcp', 80, 3]]],
    ];
    for (const [set, keys] of lookups) {
      assert.deepEqual(await fake.getElements('ip', T, set, keys), await nft.getElements('ip', T, set, keys), set.name);
    }
    for (const ip of ['10.1.0.1', '10.1.0.7']) {
      assert.deepEqual(comparable(await fake.dumpChain('ip', T, 'svc', expected(ip))), comparable(await nft.dumpChain('ip', T, 'svc', expected(ip))));
    }
  });

  it('sees a chain flushed behind its back', async () => {
    const flush = () => new Transaction().flushChain('ip', T, 'svc');
    await nft.commit(flush());
    await fake.commit(flush());
    assert.deepEqual(await nft.dumpChain('ip', T, 'svc', expected('10.1.0.1')), []);
    assert.deepEqual(await fake.dumpChain('ip', T, 'svc', expected('10.1.0.1')), []);
  });
});
