// listOnce against the test API server: the proxy's view (this Node, the Namespace opt-out, the
// ServiceCIDRs, the Services and their endpoints), complete once it returns, and no watch left open.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listOnce } from '../../src/commands/list-once';
import { parseCommandLine } from '../../src/config';
import { createLogger } from '../../src/log';
import { TestApiServer } from '../apiserver/server';
import { endpointSlice, NODE_NAME, OTHER_NODE, namespace, node, service, serviceCIDR } from '../traffic/fixtures';

const quiet = createLogger({ format: 'json', verbosity: 0, destination: { write: () => true } });

describe('listOnce', { timeout: 60_000 }, () => {
  it('returns the model the proxier would sync from, without the opted-out namespaces, then stops watching', async () => {
    const api = new TestApiServer({ bookmarkIntervalMs: 0 });
    await api.start();
    try {
      api.create('nodes', node(NODE_NAME, '192.0.2.10', { 'topology.kubernetes.io/zone': 'z1' }));
      api.create('nodes', node(OTHER_NODE, '192.0.2.11'));
      api.create('namespaces', namespace('default'));
      api.create('namespaces', namespace('quiet', { 'networking.k8s.io/kube-proxy': 'disabled' }));
      api.create('servicecidrs', serviceCIDR('kubernetes', ['10.96.0.0/16']));
      const ports = [{ name: 'http', port: 80, targetPort: 8080 }];
      api.create('services', service('web', { clusterIP: '10.96.0.10', ports }));
      api.create('endpointslices', endpointSlice('web', 'web-1', { ports, endpoints: [{ ip: '10.244.1.5' }] }));
      api.create('services', service('hidden', { namespace: 'quiet', clusterIP: '10.96.0.11', ports }));
      const cl = parseCommandLine([`--hostname-override=${NODE_NAME}`]);
      assert.deepEqual(cl.errors, []);
      const m = await listOnce({ config: cl.config, log: quiet, master: api.url });
      assert.equal(m.nodeName, NODE_NAME);
      assert.deepEqual(m.families, ['IPv4', 'IPv6']);
      assert.deepEqual(m.snapshot.node.ips, ['192.0.2.10'], 'this Node, listed before it returns');
      assert.equal(m.snapshot.node.labels['topology.kubernetes.io/zone'], 'z1');
      assert.deepEqual(m.snapshot.serviceCIDRs, ['10.96.0.0/16']);
      assert.deepEqual([...m.snapshot.services.keys()], ['default/web:http/TCP/IPv4']);
      assert.deepEqual(m.snapshot.endpoints.get('default/web:http/TCP/IPv4')?.cluster.map((e) => e.ip), ['10.244.1.5']);
      assert.deepEqual(m.disabledNamespaces, ['quiet']);
      assert.ok(!api.requests.some((r) => r.path.includes('/namespaces/quiet/')), 'the opted-out namespace was never asked for');
      // A watch already on its way when the lists ended may still arrive; none stays open.
      const eventually = Date.now() + 5000;
      while (api.openWatches > 0 && Date.now() < eventually) await new Promise((r) => setTimeout(r, 50));
      assert.equal(api.openWatches, 0, 'no watch left open');
      const asked = api.requests.length;
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(api.requests.length, asked, 'nothing asks again');
    } finally {
      await api.stop();
    }
  });
});
