// Nft.dumpTable's `jumps`: the chains a rule's immediate verdicts jump or go to, as nft shows
// them, for nft's own rules and for iptables-nft's (`-j CHAIN` is a native jump, `-g` a goto);
// other verdicts (accept, return, a verdict map) list none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Nft } from '../../src/native';
import { withNetns } from '../helpers/netns';

test('dumpTable lists each rule\'s jump and goto targets', async () => {
  await withNetns(async (ns) => {
    ns.exec('nft', ['-f', '-'], [
      'table ip t {',
      '  chain a { }', '  chain b { }',
      '  chain c { type filter hook input priority 0; tcp dport 1 jump a; tcp dport 2 goto b; accept; ip saddr vmap { 10.0.0.1 : jump a }; }',
      '}',
    ].join('\n'));
    ns.exec('iptables-nft', ['-t', 'nat', '-N', 'KUBE-X']);
    ns.exec('iptables-nft', ['-t', 'nat', '-A', 'PREROUTING', '-m', 'comment', '--comment', 'c', '-j', 'KUBE-X']);
    ns.exec('iptables-nft', ['-t', 'nat', '-A', 'PREROUTING', '-p', 'tcp', '-g', 'KUBE-X']);
    ns.exec('iptables-nft', ['-t', 'nat', '-A', 'KUBE-X', '-j', 'RETURN']);
    const nft = Nft.open({ netns: ns.path });
    try {
      const t = await nft.dumpTable('ip', 't');
      assert.deepEqual(t.rules.filter((r) => r.chain === 'c').map((r) => r.jumps), [['a'], ['b'], [], []]);
      const nat = await nft.dumpTable('ip', 'nat');
      const byChain = (c: string) => nat.rules.filter((r) => r.chain === c).map((r) => r.jumps);
      assert.deepEqual(byChain('PREROUTING'), [['KUBE-X'], ['KUBE-X']]);
      assert.deepEqual(byChain('KUBE-X'), [[]]);
    } finally {
      nft.close();
    }
  }, 'kpn-jumps');
});
