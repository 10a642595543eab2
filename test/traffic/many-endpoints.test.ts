// Services with more endpoints than select-endpoint has rules for (SELECT_RULES_MAX, 4): their
// connections pass the tests of the count-bit sets to the rule of their count. Real pods,
// the whole proxy: every endpoint gets connections, and a Service whose count crosses 4 both ways,
// or moves between larger counts, keeps answering from exactly its endpoints.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, Cluster, eventually, startCluster, waitForAnswer } from './harness';
import { endpointSlice, service, type PortSpec } from './fixtures';
import { NODE_IP } from '../helpers/topology';

describe('Services with more than 4 endpoints', () => {
  let c: Cluster;
  before(async () => { c = await startCluster({ pods: 7 }); });
  after(async () => { await c?.stop(); });

  const podNames = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `pod${from + i}`);
  const slice = (name: string, ports: PortSpec[], n: number, from = 0) =>
    endpointSlice(name, `${name}-1`, { ports, endpoints: c.topo.pods.slice(from, from + n).map((p) => ({ ip: p.ip })) });

  it('spreads TCP connections over all 6 endpoints, on the ClusterIP and the NodePort', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080, nodePort: 30180 }];
    c.api.create('services', service('six', { type: 'NodePort', clusterIP: '100.100.4.10', ports }));
    c.api.create('endpointslices', slice('six', ports, 6));
    await waitForAnswer(c, 'tcp', '100.100.4.10', 80);
    // 150 connections over 6 endpoints: one endpoint missed with odds below 1e-11.
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.4.10', 80, 150))].sort(), podNames(6));
    await waitForAnswer(c, 'tcp', NODE_IP, 30180);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', NODE_IP, 30180, 150))].sort(), podNames(6));
  });

  it('keeps serving from exactly its endpoints while its count crosses 4 both ways and moves between larger counts', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080 }];
    c.api.create('services', service('walk', { clusterIP: '100.100.4.11', ports }));
    c.api.create('endpointslices', slice('walk', ports, 2));
    await waitForAnswer(c, 'tcp', '100.100.4.11', 80);
    for (const [n, from] of [[2, 0], [7, 0], [3, 1], [5, 2], [6, 0], [1, 6]]) {
      c.api.update('endpointslices', slice('walk', ports, n, from));
      const want = podNames(n, from);
      // Until the proxy has synced, the previous endpoints answer; then only these, every one of them.
      // No connection fails meanwhile: each sync replaces the old path atomically.
      await eventually(() => {
        const lines = c.topo.probe('tcp', '100.100.4.11', 80, 25 * n);
        assert.deepEqual(lines.filter((l) => l.startsWith('ERR')), [], `to ${n} endpoints from pod${from}`);
        const seen = [...answeredBy(lines)].sort();
        return JSON.stringify(seen) === JSON.stringify(want) ? seen : undefined;
      }, `${n} endpoints from pod${from}: answers from ${want.join(', ')} only`);
    }
  });

  it('with every count from 1 to 7 in use at once, each Service is answered by exactly its own endpoints', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080 }];
    const ip = (n: number) => `100.100.5.${n}`;
    for (let n = 1; n <= 7; n++) {
      c.api.create('services', service(`count${n}`, { clusterIP: ip(n), ports }));
      c.api.create('endpointslices', slice(`count${n}`, ports, n, 7 - n));
    }
    for (let n = 1; n <= 7; n++) {
      await waitForAnswer(c, 'tcp', ip(n), 80);
      assert.deepEqual([...answeredBy(c.topo.probe('tcp', ip(n), 80, 25 * n))].sort(), podNames(n, 7 - n), `count ${n}`);
    }
  });
});
