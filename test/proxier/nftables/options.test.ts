// Bad proxier options fail at construction with the field's name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NftablesProxier, type NftablesProxierOptions } from '../../../src/proxier/nftables';

const nft = { commit: async () => ({}), dumpTable: async () => ({ chains: [], sets: [] }), dumpSet: async () => ({ elements: [] }) };
const good: NftablesProxierOptions = {
  nft, families: ['ip'], masqueradeBit: 14, masqueradeAll: false, localDetector: { mode: 'None' },
  nodePortAddresses: [], nodeIPs: [], log: { debug() {}, info() {}, warn() {}, error() {} },
};

test('valid options construct a proxier', () => {
  assert.ok(new NftablesProxier(good));
  assert.ok(new NftablesProxier({ ...good, families: ['ip', 'ip6'], nodePortAddresses: ['primary', '10.0.0.0/8'], serviceCIDRs: ['fd00::/108'] }));
});

test('each bad field is named', () => {
  const cases: [Partial<NftablesProxierOptions> | Record<string, unknown>, RegExp][] = [
    [{ families: [] }, /options\.families/],
    [{ families: ['inet'] }, /options\.families/],
    [{ families: ['ip', 'ip'] }, /options\.families/],
    [{ masqueradeBit: 32 }, /options\.masqueradeBit: 32 is not in 0\.\.31/],
    [{ masqueradeAll: 'yes' }, /options\.masqueradeAll/],
    [{ localDetector: { mode: 'Magic' } }, /options\.localDetector\.mode: unknown mode "Magic"/],
    [{ localDetector: { mode: 'ClusterCIDR', cidrs: ['10.0.0.0/33'] } }, /options\.localDetector\.cidrs\[0\]/],
    [{ localDetector: { mode: 'BridgeInterface', interface: 'a b' } }, /options\.localDetector\.interface/],
    [{ nodePortAddresses: ['192.168.0.0/24', 'secondary'] }, /options\.nodePortAddresses\[1\]: "secondary" is not a CIDR or 'primary'/],
    [{ nodeIPs: ['300.1.1.1'] }, /options\.nodeIPs\[0\]/],
    [{ serviceCIDRs: ['x'] }, /options\.serviceCIDRs\[0\]/],
    [{ nft: {} }, /options\.nft/],
    [{ log: {} }, /options\.log/],
    [{ stageBytes: -1 }, /options\.stageBytes: -1 is not a byte count/],
    [{ stageBytes: 1.5 }, /options\.stageBytes/],
    [{ conntrackTCPLiberal: 'no' }, /options\.conntrackTCPLiberal: expected a boolean/],
  ];
  for (const [over, re] of cases) {
    assert.throws(() => new NftablesProxier({ ...good, ...over } as NftablesProxierOptions), re, JSON.stringify(over));
  }
});
