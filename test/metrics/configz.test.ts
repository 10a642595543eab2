// /configz and /proxyMode through the real metrics server, against upstream: component-base configz
// (staging/src/k8s.io/component-base/configz/configz.go: {"<name>": <json.Marshal of the registered
// config>}, application/json, nosniff), registered by cmd/kube-proxy/app/server.go as
// configz.New("kubeproxy.config.k8s.io") with the internal KubeProxyConfiguration (Go field names, no
// JSON tags; metav1.Duration strings); /proxyMode from serveMetrics (the bare mode, text/plain).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { configzBody, parseCommandLine } from '../../src/config';
import { goJSON } from '../../src/config/configz';
import { startMetricsServer } from '../../src/metrics/server';
import type { RunningServer } from '../../src/http';
import { memIo, V1, withFile } from '../config/helpers';

// pkg/proxy/apis/config/types.go KubeProxyConfiguration, field order (TypeMeta is empty and omitted).
const UPSTREAM_FIELDS = ['Linux', 'Windows', 'FeatureGates', 'ClientConnection', 'Logging', 'HostnameOverride', 'BindAddress',
  'HealthzBindAddress', 'MetricsBindAddress', 'BindAddressHardFail', 'EnableProfiling', 'ShowHiddenMetricsForVersion', 'Mode',
  'IPTables', 'IPVS', 'Winkernel', 'NFTables', 'DetectLocalMode', 'DetectLocal', 'NodePortAddresses', 'SyncPeriod', 'MinSyncPeriod',
  'ConfigSyncPeriod'];

async function serve(body: () => string, proxyMode: string): Promise<RunningServer> {
  return startMetricsServer({ bindAddress: '127.0.0.1:0', registry: new Registry(), proxyMode, configz: body });
}

describe('/configz as component-base configz serves kube-proxy\'s internal config', () => {
  let server: RunningServer;
  const config = withFile(V1).config;
  before(async () => { server = await serve(() => configzBody(config), 'nftables'); });
  after(() => server.close());

  it('answers {"kubeproxy.config.k8s.io": {...}} as application/json with nosniff, no trailing newline', async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/configz`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const text = await res.text();
    assert.equal(text.endsWith('}'), true);
    const body = JSON.parse(text);
    assert.deepEqual(Object.keys(body), ['kubeproxy.config.k8s.io']);
    assert.deepEqual(Object.keys(body['kubeproxy.config.k8s.io']), UPSTREAM_FIELDS);
  });

  it('has the defaulted v1alpha1 values in Go\'s encoding: metav1.Duration strings, nil slices as null', async () => {
    const c = ((await (await fetch(`http://127.0.0.1:${server.port}/configz`)).json()) as Record<string, any>)['kubeproxy.config.k8s.io'];
    assert.deepEqual(c.Linux, {
      Conntrack: { MaxPerCore: 32768, Min: 131072, TCPEstablishedTimeout: '24h0m0s', TCPCloseWaitTimeout: '1h0m0s', TCPBeLiberal: false, UDPTimeout: '0s', UDPStreamTimeout: '0s' },
      MasqueradeAll: false, OOMScoreAdj: -999,
    });
    assert.deepEqual(c.ClientConnection, { Kubeconfig: '', AcceptContentTypes: '', ContentType: 'application/vnd.kubernetes.protobuf', QPS: 5, Burst: 10 });
    assert.deepEqual(c.FeatureGates, {});
    assert.equal(c.BindAddress, '0.0.0.0');
    assert.equal(c.HealthzBindAddress, '0.0.0.0:10256');
    assert.equal(c.MetricsBindAddress, '127.0.0.1:10249');
    assert.equal(c.Mode, 'nftables');
    assert.deepEqual(c.IPTables, { MasqueradeBit: 14, LocalhostNodePorts: true });
    assert.deepEqual(c.IPVS, { Scheduler: '', ExcludeCIDRs: null, StrictARP: false, TCPTimeout: '0s', TCPFinTimeout: '0s', UDPTimeout: '0s' });
    assert.deepEqual(c.NFTables, { MasqueradeBit: 14 });
    assert.equal(c.DetectLocalMode, 'ClusterCIDR', 'platformApplyDefaults');
    assert.deepEqual(c.DetectLocal, { BridgeInterface: '', ClusterCIDRs: null, InterfaceNamePrefix: '' });
    assert.deepEqual(c.NodePortAddresses, ['primary'], 'platformApplyDefaults, nftables');
    assert.equal(c.SyncPeriod, '30s');
    assert.equal(c.MinSyncPeriod, '1s');
    assert.equal(c.ConfigSyncPeriod, '15m0s');
    assert.equal(c.Logging.flushFrequency, '5s');
    assert.equal(c.Logging.verbosity, 0);
    assert.deepEqual(c.Logging.options, { text: { infoBufferSize: '0' }, json: { infoBufferSize: '0' } });
    assert.equal('vmodule' in c.Logging, false, 'vmodule is omitempty');
  });

  it('shows what was given: IPVS mode, its masquerade bit under IPTables, CIDR lists, bind address', () => {
    const r = parseCommandLine(['--proxy-mode=ipvs', '--iptables-masquerade-bit=9', '--cluster-cidr=10.0.0.0/8', '--bind-address=10.1.2.3',
      '--config-sync-period=90s', '--ipvs-exclude-cidrs=10.9.0.0/16'], memIo({}));
    assert.deepEqual(r.errors, []);
    const c = JSON.parse(configzBody(r.config))['kubeproxy.config.k8s.io'];
    assert.equal(c.Mode, 'ipvs');
    assert.equal(c.IPTables.MasqueradeBit, 9);
    assert.deepEqual(c.DetectLocal.ClusterCIDRs, ['10.0.0.0/8']);
    assert.deepEqual(c.IPVS.ExcludeCIDRs, ['10.9.0.0/16']);
    assert.equal(c.BindAddress, '10.1.2.3');
    assert.equal(c.ConfigSyncPeriod, '1m30s');
    assert.equal(c.NodePortAddresses, null, 'IPVS keeps nodePortAddresses unset');
  });

  it('escapes <, > and & as Go\'s json.Marshal does', () => {
    assert.equal(goJSON({ a: '<b>&' }), '{"a":"\\u003cb\\u003e\\u0026"}');
  });
});

describe('/proxyMode as upstream serveMetrics', () => {
  it('answers the bare mode name as text/plain; charset=utf-8 with nosniff', async () => {
    const server = await serve(() => '{}', 'ipvs');
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/proxyMode`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(await res.text(), 'ipvs');
      const post = await fetch(`http://127.0.0.1:${server.port}/proxyMode`, { method: 'POST' });
      assert.equal(await post.text(), 'ipvs', 'any method, as Go\'s mux');
    } finally {
      await server.close();
    }
  });
});
