// SIGKILL in the middle of a full sync of 30,000 Services: the kernel applies a transaction whole or
// not at all, so it holds the old ruleset or the new one, traffic keeps flowing through it, and the
// next process converges without a gap.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TestApiServer } from '../apiserver/server';
import { startProxyChild, type ProxyChild } from '../helpers/proxy-child';
import { Topology, NODE_IP } from '../helpers/topology';
import { normalizedRuleset } from '../proxier/nftables/kernel-helpers';
import { configFile, eventually } from '../traffic/harness';
import { endpointSlice, namespace, node, NODE_NAME, service } from '../traffic/fixtures';

const SERVICES = 30_000;
const ports = [{ name: 'http', port: 80, targetPort: 8080 }];
const WEB = '100.100.200.10';
const CANARY = '100.100.200.20';

const synced = (e: Record<string, any>) => e.msg === 'sync finished' && e.ok === true;

describe(`SIGKILL in the middle of a full sync of ${SERVICES.toLocaleString('en')} Services`, () => {
  let topo: Topology;
  let api: TestApiServer;
  const children: ProxyChild[] = [];
  before(async () => {
    topo = Topology.create(2, 'kpk');
    await topo.startServers([8080]);
    api = new TestApiServer({ bookmarkIntervalMs: 0 });
    await api.start();
    api.create('nodes', node(NODE_NAME, NODE_IP));
    api.create('namespaces', namespace('default'));
    const endpoints = topo.pods.map((p) => ({ ip: p.ip }));
    for (let i = 0; i < SERVICES; i++) {
      const name = `svc-${i}`;
      api.create('services', service(name, { clusterIP: `100.101.${i >> 8}.${i & 255}`, ports }));
      api.create('endpointslices', endpointSlice(name, `${name}-1`, { ports, endpoints }));
    }
    api.create('services', service('web', { clusterIP: WEB, ports }));
    api.create('endpointslices', endpointSlice('web', 'web-1', { ports, endpoints }));
  });
  after(async () => {
    await Promise.all(children.map((c) => c.kill('SIGKILL')));
    await api?.stop();
    topo?.destroy();
  });

  it('keeps the old or the new ruleset, and traffic flows through the kill and the restart', async () => {
    const config = await configFile(api.kubeconfig(), '');
    const spawn = () => { const c = startProxyChild(topo.node.path, ['--config', config]); children.push(c); return c; };
    const answers = (ip: string) => topo.probe('tcp', ip, 80, 1, { timeoutMs: 500 })[0] ?? '';

    const a = spawn();
    await a.waitFor(synced, 'its first sync', 180_000);
    await eventually(() => /^pod\d/.test(answers(WEB)), `${WEB} to answer`);
    const old = normalizedRuleset(topo.node);

    // About 100 requests a second through the kills and restarts, leaving the CPUs to the 30,000 Services.
    const traffic = topo.probeUntilStopped('tcp', WEB, 80, { timeoutMs: 1000, gapMs: 10 });
    assert.equal(await a.kill('SIGTERM'), 0);
    // The new ruleset differs from the old by one Service.
    api.create('services', service('canary', { clusterIP: CANARY, ports }));
    api.create('endpointslices', endpointSlice('canary', 'canary-1', { ports, endpoints: [{ ip: topo.pods[0].ip }] }));

    // Killed as the commit starts, and later into it (the kernel takes a while over 30,000 Services).
    const kills: { delayMs: number; ops: number; ruleset: Record<string, unknown> }[] = [];
    for (const delayMs of [0, 150, 400]) {
      const b = spawn();
      const commit = await b.waitFor((e) => e.msg === 'committing nftables transaction' && e.full === true, 'the commit of its first full sync', 180_000);
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      await b.kill('SIGKILL');
      kills.push({ delayMs, ops: commit.ops, ruleset: normalizedRuleset(topo.node) });
    }

    const c = spawn();
    await c.waitFor(synced, 'its first sync', 180_000);
    await eventually(() => /^pod0/.test(answers(CANARY)), `${CANARY} to answer`);
    const converged = normalizedRuleset(topo.node);
    const lines = await traffic.stop();
    await c.kill('SIGTERM');

    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const outcomes = kills.map((k) => (same(k.ruleset, old) ? 'old' : same(k.ruleset, converged) ? 'new' : 'neither'));
    if (process.env.KPN_TEST_LOG) {
      console.error(kills.map((k, i) => `killed ${k.delayMs} ms into a ${k.ops}-op commit: the kernel held the ${outcomes[i]} ruleset`).join('\n'));
      console.error(`${lines.length} requests`);
    }
    assert.deepEqual(outcomes.filter((o) => o === 'neither'), [], `after a kill the kernel held a ruleset that is neither the old nor the new one: ${outcomes}`);
    assert.notDeepEqual(old, converged);
    assert.ok(lines.length > 10, `only ${lines.length} requests were sent`);
    assert.deepEqual(lines.filter((l) => l.startsWith('ERR')), [], 'requests failed across the kill and the restart');
  });
});
