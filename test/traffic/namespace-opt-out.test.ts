// The `networking.k8s.io/kube-proxy=disabled` namespace label: the namespace's Services stop being
// served with the sync that follows the label, other namespaces are untouched, and removing the
// label brings them back.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answers, applied, Cluster, eventually, ruleset, startCluster, waitForAnswer, webInTeamAndDefault } from './harness';
import { endpointSlice, namespace, service, type PortSpec } from './fixtures';

const DISABLED = { 'networking.k8s.io/kube-proxy': 'disabled' };

describe('namespace opt-out through the whole proxy', () => {
  let c: Cluster;
  before(async () => { c = await startCluster({ pods: 2 }); });
  after(async () => { await c?.stop(); });

  const ports: PortSpec[] = [{ port: 80, targetPort: 8080 }, { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' }];
  /** How many of one TCP and one UDP request to `host` an endpoint answered. */
  const answered = (host: string) =>
    answers([...c.topo.probe('tcp', host, 80, 1, { timeoutMs: 500 }), ...c.topo.probe('udp', host, 53, 1, { timeoutMs: 500 })]).length;

  it('serves a labelled namespace\'s Services until the label, and again once it is removed', async () => {
    await webInTeamAndDefault(c, ports);

    c.api.update('namespaces', namespace('team', DISABLED));
    await eventually(() => c.proxy.watcher.disabledNamespaces().includes('team'), 'the proxy to see the label');
    await applied(c);
    assert.equal(answered('100.100.4.10'), 0, 'the opted-out Service still answers after the sync');
    assert.doesNotMatch(ruleset(c), /100\.100\.4\.10/);
    assert.equal(answered('100.100.4.11'), 2, 'a Service of another namespace stopped answering');

    // Changes inside the opted-out namespace are not watched and change nothing.
    c.api.update('endpointslices', endpointSlice('web', 'web-1', { namespace: 'team', ports, endpoints: [{ ip: c.topo.pods[1].ip }] }));

    c.api.update('namespaces', namespace('team'));
    await waitForAnswer(c, 'tcp', '100.100.4.10', 80);
    await waitForAnswer(c, 'udp', '100.100.4.10', 53);
    // The endpoint change made while opted out is picked up by the relist on opting back in.
    assert.deepEqual(c.topo.probe('tcp', '100.100.4.10', 80, 5).map((l) => l.split(' ')[0]), Array(5).fill('pod1'));
    assert.equal(answered('100.100.4.11'), 2);
  });
});
