// The Events upstream's kube-proxy records, recorded by the running proxy into the test API server:
// "Starting" on the Node (cmd/kube-proxy/app/server.go birthCry), FailedToStartServiceHealthcheck
// on a Service whose health-check node port is taken (pkg/proxy/healthcheck/service_health.go
// SyncServices), FailedToStartMetricServer when a hard-fail bind fails (server.go Run).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { startProxy } from '../../src/app/proxy-app';
import { parseCommandLine } from '../../src/config';
import { EventRecorder, type KubeEvent } from '../../src/k8s/event-recorder';
import { recordReadOnlySysFs } from '../../src/app/kube-events';
import { READ_ONLY_SYSFS_EVENT } from '../../src/conntrack/sysctls';
import { createLogger } from '../../src/log';
import { TestApiServer } from '../apiserver/server';
import { withNetns } from '../helpers/netns';
import { eventually, freePort } from '../traffic/harness';
import { endpointSlice, NODE_NAME, namespace, node, service } from '../traffic/fixtures';

const quiet = createLogger({ format: 'json', verbosity: 4, destination: { write: (l: string) => (process.env.KPN_TEST_LOG ? process.stderr.write(l) : true) } });

async function config(extra: string[] = []) {
  const cl = parseCommandLine([
    '--proxy-mode=nftables', `--hostname-override=${NODE_NAME}`, '--cluster-cidr=10.0.0.0/16',
    `--healthz-bind-address=127.0.0.1:${await freePort()}`, `--metrics-bind-address=127.0.0.1:${await freePort()}`, ...extra,
  ]);
  assert.deepEqual(cl.errors, []);
  return cl.config;
}

async function withApi(fn: (api: TestApiServer) => Promise<void>): Promise<void> {
  const api = new TestApiServer({ bookmarkIntervalMs: 0 });
  await api.start();
  api.create('nodes', node(NODE_NAME, '192.0.2.10'));
  api.create('namespaces', namespace('default'));
  try {
    await fn(api);
  } finally {
    await api.stop();
  }
}

const posted = (api: TestApiServer): KubeEvent[] => api.events.map((e) => e.event as unknown as KubeEvent);

function squat(port: number): Promise<net.Server> {
  const s = net.createServer();
  return new Promise((r) => s.listen(port, '127.0.0.1', () => r(s)));
}

describe('the Events the running proxy records', { timeout: 60_000 }, () => {
  it('readOnlySysFS: the conntrack set-up\'s finding goes to the Node as upstream\'s setupConntrack records it', async () => {
    const sent: Array<{ namespace: string; event: KubeEvent }> = [];
    const r = new EventRecorder({ post: async (namespace, event) => { sent.push({ namespace, event }); }, hostname: 'node-a' });
    recordReadOnlySysFs(r, NODE_NAME, READ_ONLY_SYSFS_EVENT);
    await r.flush(5_000);
    r.stop();
    assert.equal(sent.length, 1);
    const e = sent[0].event;
    assert.deepEqual([e.type, e.reason, e.action, e.regarding.kind, e.regarding.name], ['Warning', 'readOnlySysFS', 'StartKubeProxy', 'Node', NODE_NAME]);
    assert.equal(e.note, 'CRI error: /sys is read-only: cannot modify conntrack limits, problems may arise later (If running Docker, see docker issue #24000)');
  });

  it('"Starting" on the Node once started, and FailedToStartServiceHealthcheck on a Service whose port is taken', async () => {
    await withNetns(async (ns) => withApi(async (api) => {
      const cfg = await config();
      cfg.syncPeriod = 2000; // a periodic sync soon, to see the failure repeated
      const hcPort = await freePort();
      const squatter = await squat(hcPort);
      const ports = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }];
      api.create('services', service('web', { clusterIP: '10.96.0.10', ports, type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: hcPort }));
      api.create('endpointslices', endpointSlice('web', 'web-1', { ports, endpoints: [{ ip: '10.244.1.5' }] }));
      let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;
      try {
        proxy = await startProxy({ config: cfg, log: quiet, netns: ns.path, master: api.url, healthCheckAddresses: ['127.0.0.1'] });
        const starting = (await eventually(() => posted(api).find((e) => e.reason === 'Starting'), 'the Starting event'))!;
        assert.deepEqual(starting.regarding, { kind: 'Node', name: NODE_NAME, uid: NODE_NAME });
        assert.deepEqual([starting.type, starting.action, starting.note, starting.metadata.namespace], ['Normal', 'StartKubeProxy', '', 'default']);
        const failed = (await eventually(() => posted(api).find((e) => e.reason === 'FailedToStartServiceHealthcheck'), 'the health-check event'))!;
        assert.deepEqual(failed.regarding, { kind: 'Service', namespace: 'default', name: 'web', uid: 'default/web' });
        assert.deepEqual([failed.type, failed.action, failed.metadata.namespace], ['Warning', 'Listen', 'default']);
        assert.match(failed.note, new RegExp(`^node ${NODE_NAME} failed to start healthcheck "default/web" on port ${hcPort}: .*EADDRINUSE`));
        assert.equal(failed.reportingController, 'kube-proxy');
        const n = api.events.length;
        // The first may be the sync that failed (still finishing); the second is surely a later one.
        await proxy.nextSync();
        await proxy.nextSync();
        assert.equal(api.events.length, n, 'a failure repeated by the next syncs is not posted again');
        // Not even handed to the recorder (whose 6-minute aggregation would hide it): recorded once per change.
        assert.equal(proxy.events.stats().aggregated, 0, JSON.stringify(proxy.events.stats()));
        const [f] = proxy.healthCheckFailures();
        assert.deepEqual([f.service, f.port], ['default/web', hcPort]);
        assert.ok(f.retries >= 1, 'tried again on the later syncs');
      } finally {
        await proxy?.stop();
        await new Promise((r) => squatter.close(r));
      }
    }));
  });

  it('with --bind-address-hard-fail, FailedToStartMetricServer on the Node before start-up fails', async () => {
    await withNetns(async (ns) => withApi(async (api) => {
      const cfg = await config(['--bind-address-hard-fail=true']);
      const squatter = await squat(Number(cfg.metricsBindAddress.split(':')[1]));
      try {
        await assert.rejects(startProxy({ config: cfg, log: quiet, netns: ns.path, master: api.url }), /EADDRINUSE/);
        const e = posted(api).find((x) => x.reason === 'FailedToStartMetricServer');
        assert.ok(e, JSON.stringify(posted(api)));
        assert.deepEqual([e.type, e.action, e.regarding.kind, e.regarding.name], ['Warning', 'StartKubeProxy', 'Node', NODE_NAME]);
        assert.match(e.note, /metricsBindAddress: cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/);
      } finally {
        await new Promise((r) => squatter.close(r));
      }
    }));
  });
});
