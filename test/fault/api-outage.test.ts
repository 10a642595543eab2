// The API server goes away for 60 s while Services change: the proxy keeps every rule it had
// (traffic keeps flowing, to what the proxy last knew), says it is stale on /healthz but stays live,
// and converges on the changes once the API server is back.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, Cluster, eventually, startCluster } from '../traffic/harness';
import { endpointSlice, service } from '../traffic/fixtures';

const OUTAGE_MS = 60_000;
/** Every reflector's next attempt after the outage comes within its backoff ceiling (60 s with jitter), plus its relist. */
const RELIST_WITHIN_MS = 90_000;
const ports = [{ name: 'http', port: 80, targetPort: 8080 }];
const WEB = '100.100.6.10';
const GONE = '100.100.6.11';
const LATE = '100.100.6.12';

async function health(c: Cluster, path: '/healthz' | '/livez'): Promise<{ code: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${c.proxy.healthPort}${path}`);
  return { code: res.status, body: await res.json() };
}

describe('API server down for 60 s while Services change', () => {
  let c: Cluster;
  const log: string[] = [];
  // Stopped by the test, or here if it failed first: a probe left running fills this process's memory.
  let traffic: { stop(): Promise<string[]> } | undefined;
  // Health timeout = 2 x syncPeriod = 40 s: shorter than the outage.
  before(async () => { c = await startCluster({ pods: 3, configYaml: 'syncPeriod: 20s', logLines: log }); });
  after(async () => {
    if (process.env.KPN_OUTAGE_LOG) require('node:fs').writeFileSync(process.env.KPN_OUTAGE_LOG, log.join(''));
    await traffic?.stop();
    await c?.stop();
  });

  it('keeps the rules meanwhile, reports the stale view on /healthz only, and converges after', async () => {
    const probe = (ip: string) => c.topo.probe('tcp', ip, 80, 1, { timeoutMs: 500 })[0];
    const pods = c.topo.pods;
    c.api.create('services', service('web', { clusterIP: WEB, ports }));
    c.api.create('endpointslices', endpointSlice('web', 'web-1', { ports, endpoints: pods.map((p) => ({ ip: p.ip })) }));
    const gone = c.api.create('services', service('gone', { clusterIP: GONE, ports }));
    const goneSlice = c.api.create('endpointslices', endpointSlice('gone', 'gone-1', { ports, endpoints: [{ ip: pods[0].ip }] }));
    await eventually(() => /^pod/.test(probe(WEB)) && /^pod0/.test(probe(GONE)), 'both Services to answer');
    assert.equal((await health(c, '/healthz')).code, 200);

    // 50 requests a second for the whole outage: continuous, without keeping a CPU busy for a minute.
    traffic = c.topo.probeUntilStopped('tcp', WEB, 80, { gapMs: 20 });
    const downAt = Date.now();
    await c.api.stop();
    // What changes while the proxy cannot see it.
    c.api.update('endpointslices', endpointSlice('web', 'web-1', { ports, endpoints: pods.slice(0, 2).map((p) => ({ ip: p.ip })) }));
    c.api.delete('endpointslices', goneSlice);
    c.api.delete('services', gone);
    c.api.create('services', service('late', { clusterIP: LATE, ports }));
    c.api.create('endpointslices', endpointSlice('late', 'late-1', { ports, endpoints: [{ ip: pods[1].ip }] }));

    let unhealthySeen: any;
    while (Date.now() - downAt < OUTAGE_MS) {
      await new Promise((r) => setTimeout(r, 5000));
      assert.deepEqual([...answeredBy(c.topo.probe('tcp', WEB, 80, 30))].sort(), ['pod0', 'pod1', 'pod2'], 'the rules from before the outage stay');
      assert.match(probe(GONE), /^pod0/, 'a Service deleted during the outage keeps working until the proxy learns of it');
      assert.equal((await health(c, '/livez')).code, 200, '/livez stays healthy: a restart would not bring the API server back');
      const h = await health(c, '/healthz');
      if (h.code === 503) unhealthySeen ??= { afterMs: Date.now() - downAt, body: h.body };
    }
    assert.ok(unhealthySeen, '/healthz turned unhealthy during the outage');
    assert.ok(unhealthySeen.afterMs > 40_000 - 5_000, `/healthz turned unhealthy after ${unhealthySeen.afterMs} ms, before the health timeout`);
    assert.match(JSON.stringify(unhealthySeen.body.reasons), /services|endpointslices/);

    await c.api.start();
    const upAt = Date.now();
    // A deleted Service's address is no longer translated (with no ServiceCIDRs known, nothing rejects it).
    await eventually(() => /^pod1/.test(probe(LATE)) && !/^pod/.test(probe(GONE)), 'the changes made during the outage', RELIST_WITHIN_MS);
    await eventually(() => !answeredBy(c.topo.probe('tcp', WEB, 80, 30)).has('pod2'), 'pod2 to leave web', 10_000);
    const convergedMs = Date.now() - upAt;
    // /healthz waits for every informer (nodes, namespaces, servicecidrs too), and each retries on its
    // own backoff, up to 30 s x (1 + jitter 1.0) = 60 s apart at the end of a 60 s outage: the last
    // may relist up to a minute after the API server is back, later than the two that converge above.
    await eventually(async () => (await health(c, '/healthz')).code === 200, '/healthz healthy again', Math.max(1_000, RELIST_WITHIN_MS - (Date.now() - upAt)));
    const healthyMs = Date.now() - upAt;
    const lines = await traffic.stop();
    traffic = undefined;
    if (process.env.KPN_TEST_LOG) {
      console.error(`/healthz unhealthy ${unhealthySeen.afterMs} ms into the outage: ${JSON.stringify(unhealthySeen.body.reasons)}`);
      console.error(`converged ${convergedMs} ms after the API server came back, healthy after ${healthyMs} ms; ${lines.length} requests, ${lines.filter((l) => l.startsWith('ERR')).length} failed`);
    }
    assert.deepEqual(lines.filter((l) => l.startsWith('ERR')), [], 'requests to web failed during the outage');
  });
});
