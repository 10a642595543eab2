// --write-config-to writes the effective configuration as v1alpha2 and exits; it migrates v1alpha1 files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { parseCommandLine } from '../../src/config';
import { memIo, V1, withFile } from './helpers';

test('--write-config-to migrates a v1alpha1 file to v1alpha2', () => {
  const r = withFile(V1 + 'mode: ipvs\nipvs:\n  syncPeriod: 45s\n  scheduler: wrr\nclusterCIDR: 10.0.0.0/8\nconntrack:\n  maxPerCore: 0\noomScoreAdj: -10\n'
    + 'iptables:\n  masqueradeAll: true\n  masqueradeBit: 12\nbindAddress: 10.0.0.3\n', '--write-config-to=new.yaml');
  assert.deepEqual(r.errors, []);
  assert.equal(r.action, 'write-config');
  assert.equal(r.output?.path, 'new.yaml');
  const out = parse(r.output!.content);
  assert.equal(out.apiVersion, 'kubeproxy.config.k8s.io/v1alpha2');
  assert.equal(out.kind, 'KubeProxyConfiguration');
  assert.equal(out.syncPeriod, '45s');
  assert.equal(out.minSyncPeriod, '0s');
  assert.equal(out.ipvs.scheduler, 'wrr');
  assert.equal(out.ipvs.masqueradeBit, 12);
  assert.deepEqual(out.detectLocal.clusterCIDRs, ['10.0.0.0/8']);
  assert.equal(out.linux.conntrack.maxPerCore, 0);
  assert.equal(out.linux.oomScoreAdj, -10);
  assert.equal(out.linux.masqueradeAll, true);
  assert.deepEqual(out.nodeIPOverride, ['10.0.0.3']);
  // v1alpha1's defaults that changed in v1alpha2 are written out, so behaviour does not change
  assert.equal(out.iptables.localhostNodePorts, true);
  assert.equal(out.bindAddressHardFail, false);
  for (const gone of ['clusterCIDR', 'conntrack', 'oomScoreAdj', 'bindAddress', 'portRange']) assert.equal(gone in out, false, gone);
  // The written file loads back to the same effective configuration.
  const again = withFile(r.output!.content);
  assert.deepEqual(again.errors, []);
  assert.deepEqual(again.config, r.config);
});

test('--write-config-to without --config writes the flag-derived configuration', () => {
  const r = parseCommandLine(['--proxy-mode=nftables', '--iptables-sync-period=12s', '--write-config-to', 'out.yaml'], memIo({}));
  assert.deepEqual(r.errors, []);
  const out = parse(r.output!.content);
  assert.equal(out.mode, 'nftables');
  assert.equal(out.syncPeriod, '12s');
});

test('--write-config-to writes nothing when the configuration is invalid', () => {
  const r = withFile(V1 + 'oomScoreAdj: 2000\n', '--write-config-to=new.yaml');
  assert.equal(r.action, 'write-config');
  assert.equal(r.output, undefined);
  assert.deepEqual(r.errors, ['oomScoreAdj: must be within the range [-1000, 1000], got 2000 (line 3)']);
});

test('strings that YAML 1.1 would read as something else are quoted when written', () => {
  const r = withFile(V1 + 'hostnameOverride: "yes"\ndetectLocal:\n  bridgeInterface: "0x10"\n', '--write-config-to=o.yaml');
  assert.deepEqual(r.errors, []);
  const again = withFile(r.output!.content);
  assert.deepEqual(again.errors, []);
  assert.equal(again.config.hostnameOverride, 'yes');
  assert.equal(again.config.detectLocal.bridgeInterface, '0x10');
});
