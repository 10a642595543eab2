// The session-affinity records maps are bounded: clients cannot grow kernel memory without limit.
// When one is full, new clients are still served (load-balanced without affinity), never dropped.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NftablesProxier } from '../../../src/proxier/nftables';
import { Nft } from '../../../src/native';
import { Topology } from '../../helpers/topology';
import { ep, snapshot, sp } from './fixtures';
import { changed, quietLog } from './kernel-helpers';

const VIP = '100.100.9.9';
const SECOND_CLIENT = '198.18.0.3';

describe('a full session-affinity records map', () => {
  let topo: Topology;
  let nft: Nft;
  before(async () => {
    topo = Topology.create(2, 'kpa');
    await topo.startServers([8080]);
    topo.addClientAddress(SECOND_CLIENT);
    nft = Nft.open({ netns: topo.node.path });
  });
  after(() => { nft?.close(); topo?.destroy(); });

  it('holds at most its size; clients beyond it are served without affinity', async () => {
    const proxier = new NftablesProxier({
      nft, families: ['ip'], masqueradeBit: 14, masqueradeAll: false, localDetector: { mode: 'None' },
      nodePortAddresses: [], nodeIPs: [], log: quietLog, affinitySetSize: 1,
    });
    const svc = sp('sticky', { clusterIP: VIP, affinityTimeoutSeconds: 600 });
    const r = await proxier.sync(snapshot([[svc, topo.pods.map((p) => ep(p.ip, 8080))]]), changed(), true);
    assert.deepEqual(r, { full: true, ok: true });
    assert.match(topo.node.nft('list', 'map', 'ip', 'kube-proxy', 'affinity-records'), /size 1\b/);

    const first = topo.probe('tcp', VIP, 80, 20).map((l) => l.split(' ')[0]);
    assert.equal(new Set(first).size, 1, `the first client sticks to one endpoint: ${first}`);
    const second = topo.probe('tcp', VIP, 80, 40, { sourceAddress: SECOND_CLIENT }).map((l) => l.split(' ')[0]);
    assert.deepEqual(second.filter((l) => l === 'ERR'), [], 'no connection of the second client fails');
    assert.deepEqual([...new Set(second)].sort(), ['pod0', 'pod1'], 'the second client, with no room in the map, is load-balanced');
    const entries = topo.node.nft('list', 'map', 'ip', 'kube-proxy', 'affinity-records').match(/timeout \d/g) ?? [];
    assert.equal(entries.length, 1, 'the map holds one record: the first client\'s');
  });
});
