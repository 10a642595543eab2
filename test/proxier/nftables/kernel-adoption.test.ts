// Start-up adoption reads the kernel once: one dump of `kube-proxy` per family, without elements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns } from '../../helpers/netns';
import { Nft } from '../../../src/native';
import { ep, snapshot, sp } from './fixtures';
import { changed, proxierIn } from './kernel-helpers';
import type { Endpoint, ServicePort } from '../../../src/core/types';

const services: [ServicePort, Endpoint[]][] = Array.from({ length: 6 }, (_, i) => [
  sp(`svc${i}`, { key: `ns1/svc${i}:p80/TCP`, clusterIP: `172.30.0.${10 + i}`, nodePort: i % 3 === 0 ? 30000 + i : 0 }),
  [ep(`10.180.${i}.1`), ep(`10.180.${i}.2`)],
]);

test('start-up dumps each family\'s kube-proxy table once, without elements', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    const dumped: string[] = [];
    const handle = {
      commit: nft.commit.bind(nft),
      dumpTable: (f: 'ip' | 'ip6', t: string, opts?: { elements?: boolean }) => {
        dumped.push(`${f} ${t} elements=${opts?.elements}`);
        return nft.dumpTable(f, t, opts);
      },
    };
    const { proxier, nft: unused } = proxierIn(ns, { nft: handle });
    unused.close();
    try {
      assert.deepEqual(await proxier.sync(snapshot(services), changed(), true), { full: true, ok: true });
      // Only names and kinds are needed: no element is listed (a 50k-Service table holds ~400k).
      assert.deepEqual(dumped, ['ip kube-proxy elements=false', 'ip6 kube-proxy elements=false']);
      assert.deepEqual(await proxier.sync(snapshot(services), changed(), true), { full: true, ok: true });
      assert.equal(dumped.length, 2, 'the start-up dump is done once');
    } finally { nft.close(); }
  });
});
