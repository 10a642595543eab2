// Refused address claims through the sync loop: said once when they start and once when they end
// (not per sync), with both Services and the key; the event on the claimant; the metrics.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { reportClaims } from '../../src/app/claim-reports';
import { SyncLoop } from '../../src/app/sync-loop';
import { ProxyState } from '../../src/core';
import type { Proxier, SyncResult } from '../../src/core/types';
import { ProxyHealth } from '../../src/health/proxy-health';
import { createProxyMetrics } from '../../src/metrics/proxy-metrics';
import { recordingLogger, service } from '../core/fixtures';

const okProxier: Proxier = { sync: async (_s, _c, full): Promise<SyncResult> => ({ full, ok: true }) };

function setup() {
  const state = new ProxyState({ nodeName: 'node-a', ipFamilies: ['IPv4'], log: recordingLogger(), startTime: new Date(0) });
  const registry = new Registry();
  const metrics = createProxyMetrics(registry, { processMetrics: false });
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const log = {
    warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    info: (obj: object, msg: string) => lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
  };
  const events: { service: string; uid?: string; message: string }[] = [];
  const loop = new SyncLoop({
    state, proxier: okProxier, families: ['IPv4'], metrics, health: new ProxyHealth(60_000), log: { ...log, debug: () => {}, error: () => {} } as never,
    claims: (c, current) => reportClaims({ log, metrics, onRefused: (s, m) => events.push({ service: `${s.namespace}/${s.name}`, uid: s.uid, message: m }) }, c, current),
  });
  return { state, registry, lines, events, loop };
}

async function value(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const m = await registry.getSingleMetric(name)!.get();
  return m.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

const victim = () => service('victim', { clusterIP: '10.96.100.36', clusterIPs: ['10.96.100.36'] }, { namespace: 'team-a' });
const claimant = (externalIPs: string[]) => service('claimant', { clusterIP: '10.96.7.7', clusterIPs: ['10.96.7.7'], externalIPs }, { namespace: 'team-b' });

describe('refused address claims, as the proxy reports them', () => {
  it('says a refusal once when it starts, not on the syncs after it, and once when it ends', async () => {
    const t = setup();
    t.state.onService('add', victim());
    t.state.onService('add', claimant(['10.96.100.36']));
    await t.loop.run('requested');
    for (let i = 0; i < 20; i++) await t.loop.run('periodic');
    const warns = t.lines.filter((l) => l.level === 'warn');
    assert.equal(warns.length, 1, JSON.stringify(t.lines));
    assert.match(warns[0].msg, /^Address claim refused: externalIP 10\.96\.100\.36:80\/TCP is already the ClusterIP of Service team-a\/victim; this Service's claim is refused \(a ClusterIP beats an external or load-balancer IP\)/);
    assert.deepEqual({ ns: warns[0].obj.namespace, name: warns[0].obj.name, owner: warns[0].obj.owner, key: warns[0].obj.key },
      { ns: 'team-b', name: 'claimant', owner: 'team-a/victim', key: '10.96.100.36:80/TCP' });
    assert.deepEqual(t.events.map((e) => e.service), ['team-b/claimant'], 'the Warning event goes on the claimant, once');
    assert.equal(await value(t.registry, 'kubeproxy_native_address_claims_refused_total', { claim: 'externalIP' }), 1);
    assert.equal(await value(t.registry, 'kubeproxy_native_address_claims_refused'), 1);
    // The claimant drops the entry: the refusal ends, said once at info.
    t.state.onService('update', claimant([]));
    await t.loop.run('requested');
    await t.loop.run('periodic');
    const infos = t.lines.filter((l) => l.level === 'info');
    assert.deepEqual(infos.map((l) => l.msg), ['Address claim no longer refused: 10.96.100.36:80/TCP']);
    assert.equal(await value(t.registry, 'kubeproxy_native_address_claims_refused'), 0);
    assert.equal(await value(t.registry, 'kubeproxy_native_address_claims_refused_total', { claim: 'externalIP' }), 1, 'a counter of refusals made');
  });

  it('reports a refusal made by the owner\'s arrival on the claimant, whichever came first', async () => {
    const t = setup();
    t.state.onService('add', claimant(['10.96.100.36']));
    await t.loop.run('requested');
    assert.equal(t.lines.length, 0, 'nobody owns the address yet: the claimant serves it');
    t.state.onService('add', victim());
    await t.loop.run('requested');
    assert.deepEqual(t.events.map((e) => e.service), ['team-b/claimant']);
    assert.equal(t.lines.filter((l) => l.level === 'warn').length, 1);
  });

  it('names the claimant by its metadata.uid for the event (kubectl describe service selects events by UID)', async () => {
    const t = setup();
    t.state.onService('add', victim());
    const c = claimant(['10.96.100.36']);
    c.metadata!.uid = '5a1c0c52-36c0-4a6e-9d1e-0c1a1b2c3d4e';
    t.state.onService('add', c);
    await t.loop.run('requested');
    assert.deepEqual(t.events.map((e) => [e.service, e.uid]), [['team-b/claimant', '5a1c0c52-36c0-4a6e-9d1e-0c1a1b2c3d4e']]);
  });
});
