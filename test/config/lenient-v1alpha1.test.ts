// v1alpha1 files as upstream reads them: strict decoding first; when it fails only for unknown or
// duplicate fields, lenient decoding (unknown fields skipped, a repeated field's last value wins)
// with a warning naming what strict decoding refused. v1alpha2 stays strict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { V1, V2, withFile } from './helpers';

const LENIENT = 'Using lenient decoding as strict decoding failed: ';

test('a v1alpha1 file with unknown fields is read leniently, with one warning naming them (hints kept)', () => {
  const r = withFile(V1 + 'mode: ipvs\nbogusField: 1\nlinux:\n  masqueradeAll: true\nconntrack:\n  maxPerCPU: 3\n');
  assert.deepEqual(r.errors, []);
  assert.equal(r.config.mode, 'ipvs');
  assert.equal(r.config.linux.masqueradeAll, false, 'the v1alpha2 field is not read from a v1alpha1 file');
  assert.deepEqual(r.warnings.filter((w) => w.startsWith(LENIENT)), [LENIENT + [
    'bogusField: unknown field (line 4)',
    'linux: unknown field: a v1alpha2 field; set apiVersion: kubeproxy.config.k8s.io/v1alpha2 to use it (line 5)',
    'conntrack.maxPerCPU: unknown field (line 8)',
  ].join('; ')]);
});

test('a repeated field in a v1alpha1 file: the last value wins, with the warning', () => {
  const r = withFile(V1 + 'mode: ipvs\nmode: nftables\nfeatureGates:\n  A: true\n  A: false\n');
  assert.deepEqual(r.errors, []);
  assert.equal(r.config.mode, 'nftables');
  assert.deepEqual(r.config.featureGates, { A: false });
  assert.equal(r.warnings.filter((w) => w.startsWith(LENIENT)).length, 1);
});

test('a v1alpha1 file with a wrong type is still an error, whatever else it has (lenient decoding fails too)', () => {
  const r = withFile(V1 + 'bogusField: 1\nenableProfiling: maybe\n');
  assert.equal(r.errors.length, 2, r.errors.join('\n'));
  assert.ok(r.errors.some((e) => e.startsWith('enableProfiling: ')), r.errors.join('\n'));
});

test('a v1alpha2 file stays strict', () => {
  assert.deepEqual(withFile(V2 + 'bogusField: 1\n').errors, ['bogusField: unknown field (line 3)']);
  assert.deepEqual(withFile(V2 + 'mode: ipvs\nmode: nftables\n').errors, ['mode: duplicate field (first set on line 3) (line 4)']);
});
