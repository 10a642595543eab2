// The running proxy's health-check node ports against the test API server: the count a load balancer
// reads is upstream's LocalReadyEndpoints (pkg/proxy/endpointsmap.go, fed to
// serviceHealthServer.SyncEndpoints by the nftables proxier): ready local endpoints only.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startProxy } from '../../src/app/proxy-app';
import { parseCommandLine } from '../../src/config';
import { createLogger } from '../../src/log';
import { TestApiServer } from '../apiserver/server';
import { withNetns } from '../helpers/netns';
import { eventually, freePort } from '../traffic/harness';
import { endpointSlice, NODE_NAME, OTHER_NODE, namespace, node, service, type EndpointSpec } from '../traffic/fixtures';

const quiet = createLogger({ format: 'json', verbosity: 0, destination: { write: () => true } });

async function probe(port: number): Promise<{ status: number; localEndpoints: number } | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    const body = (await res.json()) as { localEndpoints: number };
    return { status: res.status, localEndpoints: body.localEndpoints };
  } catch {
    return undefined;
  }
}

describe('health-check node ports of the running proxy', { timeout: 60_000 }, () => {
  it('count ready local endpoints only: 200 while one is ready, 503 once the local ones are only terminating', async () => {
    await withNetns(async (ns) => {
      const api = new TestApiServer({ bookmarkIntervalMs: 0 });
      await api.start();
      api.create('nodes', node(NODE_NAME, '192.0.2.10'));
      api.create('namespaces', namespace('default'));
      const hcPort = await freePort();
      const ports = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }, { name: 'https', port: 443, targetPort: 8443, nodePort: 30443 }];
      api.create('services', service('web', { clusterIP: '10.96.0.10', ports, type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: hcPort }));
      const eps = (list: EndpointSpec[]) => endpointSlice('web', 'web-1', { ports, endpoints: list });
      const slice = api.create('endpointslices', eps([
        { ip: '10.244.1.5' },
        { ip: '10.244.1.6', ready: false, serving: true, terminating: true },
        { ip: '10.244.1.7', ready: false, serving: false },
        { ip: '10.244.2.8', nodeName: OTHER_NODE },
      ]));
      const cl = parseCommandLine(['--proxy-mode=nftables', `--hostname-override=${NODE_NAME}`, '--cluster-cidr=10.0.0.0/16',
        `--healthz-bind-address=127.0.0.1:${await freePort()}`, `--metrics-bind-address=127.0.0.1:${await freePort()}`]);
      assert.deepEqual(cl.errors, []);
      const proxy = await startProxy({ config: cl.config, log: quiet, netns: ns.path, master: api.url, healthCheckAddresses: ['127.0.0.1'] });
      try {
        const first = await eventually(() => probe(hcPort), 'the health-check port to answer');
        assert.deepEqual(first, { status: 200, localEndpoints: 1 }, 'one ready local endpoint; terminating, not-ready and remote ones do not count');
        const next = eps([
          { ip: '10.244.1.5', ready: false, serving: true, terminating: true },
          { ip: '10.244.1.6', ready: false, serving: true, terminating: true },
          { ip: '10.244.2.8', nodeName: OTHER_NODE },
        ]);
        next.metadata.resourceVersion = slice.metadata?.resourceVersion;
        api.update('endpointslices', next);
        const drained = await eventually(async () => {
          const p = await probe(hcPort);
          return p?.status === 503 ? p : undefined;
        }, 'the port to answer 503');
        assert.deepEqual(drained, { status: 503, localEndpoints: 0 });
      } finally {
        await proxy.stop();
        await api.stop();
      }
    });
  });
});
