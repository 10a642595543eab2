// A proxy restart: the kernel keeps serving while no proxy runs, the new proxy adopts what it finds
// without a gap in traffic, and its later partial syncs work on the adopted ruleset.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, answers, applied, Cluster, eventually, ruleset, startCluster, waitForAnswer } from './harness';
import { endpointSlice, service, type PortSpec } from './fixtures';

describe('proxy restart through the whole proxy', () => {
  let c: Cluster;
  before(async () => { c = await startCluster({ pods: 3 }); });
  after(async () => { await c?.stop(); });

  it('keeps TCP and UDP traffic flowing across a restart, then applies changes on the adopted ruleset', async () => {
    const ports: PortSpec[] = [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' }];
    const slice = (n: number) => endpointSlice('web', 'web-1', { ports, endpoints: c.topo.pods.slice(0, n).map((p) => ({ ip: p.ip })) });
    c.api.create('services', service('web', { clusterIP: '100.100.5.10', ports }));
    c.api.create('endpointslices', slice(3));
    await waitForAnswer(c, 'tcp', '100.100.5.10', 80);
    await waitForAnswer(c, 'udp', '100.100.5.10', 53);

    const tcp = c.topo.probeUntilStopped('tcp', '100.100.5.10', 80);
    const udp = c.topo.probeUntilStopped('udp', '100.100.5.10', 53);
    await c.restartProxy();
    await eventually(() => c.proxy.watcher.status().synced, 'the new proxy to list Services and EndpointSlices');
    await applied(c);
    c.api.update('endpointslices', slice(2));
    await eventually(async () => { await applied(c); return !/100\.96\.1\.4\b/.test(ruleset(c)); }, 'pod2 to leave the ruleset');
    const lines = [...await tcp.stop(), ...await udp.stop()];
    if (process.env.KPN_TEST_LOG) console.error(`${lines.length} requests across the restart`);

    assert.ok(lines.length > 2, `only ${lines.length} requests were sent across the restart`);
    assert.deepEqual(lines.filter((l) => l.startsWith('ERR')), [], 'requests failed across the restart');
    assert.equal(answers(lines).length, lines.length);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.5.10', 80, 40))].sort(), ['pod0', 'pod1']);
    assert.deepEqual([...answeredBy(c.topo.probe('udp', '100.100.5.10', 53, 40))].sort(), ['pod0', 'pod1']);
  });
});
