// Another process changes our rules while traffic flows (a firewall reload, an operator's `nft`):
// the proxy sees it on the nftables event group and repairs it, traffic back within a second; a
// process that keeps fighting gets repairs at growing intervals, not a busy loop.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster, eventually, startCluster, waitForAnswer } from './harness';
import { endpointSlice, service } from './fixtures';

const VIP = '100.100.7.10';
const ports = [{ name: 'http', port: 80, targetPort: 8080 }];

const CASES: [string, string][] = [
  ['flush the table', 'flush table ip kube-proxy'],
  ['delete a chain', 'flush chain ip kube-proxy nat-prerouting\ndelete chain ip kube-proxy nat-prerouting'],
  ['delete a map element', `delete element ip kube-proxy cluster-ip-ports { ${VIP} . tcp . 80 }`],
  // The web Service has two endpoints: its map is endpoints-2, which the select rule refers to.
  ['delete a map', 'flush chain ip kube-proxy select-endpoint\ndelete map ip kube-proxy endpoints-2'],
  ['delete a set', 'flush chain ip kube-proxy services\ndelete set ip kube-proxy cluster-ip-ports'],
  ['add a foreign rule', `insert rule ip kube-proxy services ip daddr ${VIP} drop`],
  ['flush the whole ruleset', 'flush ruleset'],
];

async function counter(c: Cluster, name: 'rulesetRepairsTotal' | 'rulesetForeignChangesTotal'): Promise<number> {
  const m = await c.proxy.metrics[name].get();
  return m.values.reduce((n, v) => n + v.value, 0);
}

describe('rules changed by another process', () => {
  let c: Cluster;
  const log: string[] = [];
  before(async () => {
    c = await startCluster({ pods: 2, logLines: log });
    c.api.create('services', service('web', { clusterIP: VIP, ports }));
    c.api.create('endpointslices', endpointSlice('web', 'web-1', { ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip })) }));
    await waitForAnswer(c, 'tcp', VIP, 80);
  });
  after(async () => { await c?.stop(); });

  for (const [what, script] of CASES) {
    it(`${what}: repaired, traffic back within 1 s`, async () => {
      // A new process each time: repairs close together count as a fight (see the last test).
      await c.restartProxy();
      await eventually(() => c.proxy.watcher.status().synced, 'the proxy to list');
      await waitForAnswer(c, 'tcp', VIP, 80);
      const repairsBefore = await counter(c, 'rulesetRepairsTotal');
      const broken = Date.now();
      c.topo.node.exec('nft', ['-f', '-'], `${script}\n`);
      const down = (await c.topo.probeAsync('tcp', VIP, 80, 1, { timeoutMs: 200 }))[0];
      let back = 0;
      await eventually(async () => {
        const line = (await c.topo.probeAsync('tcp', VIP, 80, 1, { timeoutMs: 200 }))[0];
        if (/^pod/.test(line)) back = Date.now() - broken;
        return back > 0;
      }, `${VIP} to answer again after "${script}"`, 10_000);
      const repaired = log.map((l) => JSON.parse(l)).find((e) => e.msg === 'sync finished' && e.full === true && e.ok === true && e.ts >= broken);
      const repairMs = repaired ? repaired.ts - broken : NaN;
      if (process.env.KPN_TEST_LOG) console.error(`${what}: repaired ${repairMs} ms after the change; a probe right after it got "${down}"; answered again after ${back} ms`);
      assert.ok(repairMs < 1000, `the repair sync finished ${repairMs} ms after "${what}"`);
      assert.ok(back < 1000, `traffic came back ${back} ms after "${what}"`);
      assert.equal(await counter(c, 'rulesetRepairsTotal'), repairsBefore + 1);
      const warning = log.map((l) => JSON.parse(l)).reverse().find((e) => /Another process changed our nftables rules/.test(e.msg));
      assert.equal(warning?.comm, 'nft', 'the log names who changed the rules');
      assert.ok(warning?.changes, 'and what');
    });
  }

  it('a process that keeps changing them gets repairs at growing intervals, and the last one stands', async () => {
    await c.restartProxy();
    await eventually(() => c.proxy.watcher.status().synced, 'the proxy to list');
    await waitForAnswer(c, 'tcp', VIP, 80);
    const repairsBefore = await counter(c, 'rulesetRepairsTotal');
    const changesBefore = await counter(c, 'rulesetForeignChangesTotal');
    const started = Date.now();
    let fights = 0;
    while (Date.now() - started < 8000) {
      c.topo.node.exec('nft', ['flush', 'chain', 'ip', 'kube-proxy', 'services']);
      fights++;
      await new Promise((r) => setTimeout(r, 100));
    }
    const repairs = await counter(c, 'rulesetRepairsTotal') - repairsBefore;
    // Repairs at 0, 1, 3 and 7 s of the fight (and possibly the one due at 15 s, after it ended).
    assert.ok(repairs >= 3 && repairs <= 5, `${repairs} repairs during ${fights} foreign changes in 8 s`);
    // A flush of an already empty chain changes nothing and announces nothing: each repair is undone once.
    assert.ok(await counter(c, 'rulesetForeignChangesTotal') - changesBefore >= repairs, 'the foreign changes are counted');
    await eventually(() => /^pod/.test(c.topo.probe('tcp', VIP, 80, 1, { timeoutMs: 200 })[0]), 'the last repair after the fight', 20_000);
  });
});
