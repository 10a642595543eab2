// The defaults upstream applies after loading, whatever the source (cmd/kube-proxy/app/server_linux.go
// platformApplyDefaults): detectLocalMode blank -> ClusterCIDR; nftables with nodePortAddresses unset ->
// ["primary"]; IPVS keeps "unset". --write-config-to writes them, as upstream's writeConfigFile writes
// the config Complete() defaulted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { parseCommandLine } from '../../src/config';
import { memIo, V1, V2, withFile } from './helpers';

const sources: Array<[string, () => ReturnType<typeof parseCommandLine>]> = [
  ['v1alpha1 file', () => withFile(V1)],
  ['v1alpha2 file', () => withFile(V2)],
  ['flags only', () => parseCommandLine([], memIo({}))],
  ['explicit blank in a file', () => withFile(V2 + 'detectLocalMode: ""\n')],
  ['explicit blank flag', () => parseCommandLine(['--detect-local-mode='], memIo({}))],
];

for (const [name, load] of sources) {
  test(`platformApplyDefaults: detectLocalMode unset means ClusterCIDR (${name})`, () => {
    const r = load();
    assert.deepEqual(r.errors, []);
    assert.equal(r.config.detectLocalMode, 'ClusterCIDR');
  });
}

test('platformApplyDefaults: a detectLocalMode that is given is kept', () => {
  const r = withFile(V2 + 'detectLocalMode: NodeCIDR\n');
  assert.deepEqual(r.errors, []);
  assert.equal(r.config.detectLocalMode, 'NodeCIDR');
});

test('platformApplyDefaults: nftables mode (explicit or blank) with nodePortAddresses unset means ["primary"]', () => {
  for (const r of [withFile(V2 + 'mode: nftables\n'), withFile(V2), withFile(V1), parseCommandLine(['--proxy-mode=nftables'], memIo({}))]) {
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.config.nodePortAddresses, ['primary']);
  }
});

test('platformApplyDefaults: nodePortAddresses given in nftables mode are kept', () => {
  const r = withFile(V2 + 'mode: nftables\nnodePortAddresses: [10.0.0.0/8]\n');
  assert.deepEqual(r.config.nodePortAddresses, ['10.0.0.0/8']);
});

test('platformApplyDefaults: IPVS mode keeps nodePortAddresses unset (every local address), as upstream', () => {
  for (const r of [withFile(V2 + 'mode: ipvs\n'), withFile(V1 + 'mode: ipvs\n'), parseCommandLine(['--proxy-mode=ipvs'], memIo({}))]) {
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.config.nodePortAddresses, []);
  }
});

test('--write-config-to writes the platform defaults (detectLocalMode, nodePortAddresses) as upstream does', () => {
  const r = parseCommandLine(['--proxy-mode=nftables', '--write-config-to', 'out.yaml'], memIo({}));
  assert.deepEqual(r.errors, []);
  const out = parse(r.output!.content);
  assert.equal(out.detectLocalMode, 'ClusterCIDR');
  assert.deepEqual(out.nodePortAddresses, ['primary']);
  const again = withFile(r.output!.content);
  assert.deepEqual(again.config, r.config);
});

test('configHardFail false: an invalid detectLocalMode falls back to the default, and that is ClusterCIDR', () => {
  const r = withFile(V2 + 'configHardFail: false\ndetectLocalMode: PodCIDR\n');
  assert.deepEqual(r.errors, []);
  assert.equal(r.config.detectLocalMode, 'ClusterCIDR');
});
