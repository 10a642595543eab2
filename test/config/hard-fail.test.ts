// configHardFail: true stops with every error listed; false warns about each, puts the offending
// value back to its default, and starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { V2, withFile } from './helpers';

const BAD = 'mode: ipvs\nsyncPeriod: 1x\nipvs:\n  masqueradeBit: 99\n  syncPeriod: 10s\nnodeIPOverride: [10.0.0.1, bogus]\nlinux:\n  oomScoreAdj: 5000\n  conntrack:\n    min: 1000\n';

test('configHardFail true (the default): every error, none started', () => {
  const r = withFile(V2 + BAD);
  assert.equal(r.action, 'run');
  assert.deepEqual(r.errors, [
    'syncPeriod: invalid duration "1x": unknown unit "x" (line 4)',
    'ipvs.syncPeriod: unknown field: moved to syncPeriod (top level) in v1alpha2 (line 7)',
    'nodeIPOverride[1]: must be a valid IP address, got "bogus" (line 8)',
    'linux.oomScoreAdj: must be within the range [-1000, 1000], got 5000 (line 10)',
    'ipvs.masqueradeBit: must be within the range [0, 31], got 99 (line 6)',
  ]);
  assert.deepEqual(r.warnings, []);
});

test('configHardFail false: warnings, defaults for the bad values, good values kept', () => {
  const r = withFile(V2 + 'configHardFail: false\n' + BAD);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.warnings, [
    'syncPeriod: invalid duration "1x": unknown unit "x" (line 5); ignoring it (the default applies)',
    'ipvs.syncPeriod: unknown field: moved to syncPeriod (top level) in v1alpha2 (line 8); ignoring it (the default applies)',
    'nodeIPOverride[1]: must be a valid IP address, got "bogus" (line 9); using the default instead',
    'linux.oomScoreAdj: must be within the range [-1000, 1000], got 5000 (line 11); using the default instead',
    'ipvs.masqueradeBit: must be within the range [0, 31], got 99 (line 7); using the default instead',
  ]);
  const c = r.config;
  assert.equal(c.syncPeriod, 30_000);
  assert.deepEqual(c.nodeIPOverride, []);
  assert.equal(c.linux.oomScoreAdj, -999);
  assert.equal(c.ipvs.masqueradeBit, 14);
  // untouched good values
  assert.equal(c.mode, 'ipvs');
  assert.equal(c.linux.conntrack.min, 1000);
});

test('configHardFail false: a cross-field error resets both fields', () => {
  const r = withFile(V2 + 'configHardFail: false\nsyncPeriod: 10s\nminSyncPeriod: 2m\n');
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.warnings, ['syncPeriod: must be greater than or equal to minSyncPeriod (line 4); using the default instead']);
  assert.equal(r.config.syncPeriod, 30_000);
  assert.equal(r.config.minSyncPeriod, 1000);
});

test('configHardFail false: an unsupported mode falls back to the default mode', () => {
  const r = withFile(V2 + 'configHardFail: false\nmode: iptables\n');
  assert.deepEqual(r.errors, []);
  assert.equal(r.config.mode, '');
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0], /^mode: "iptables" mode is not provided by kube-proxy-native/);
});

test('configHardFail false cannot rescue an unreadable file', () => {
  const r = withFile(V2 + 'configHardFail: false\nmode: [\n');
  assert.equal(r.errors.length, 1);
  assert.match(r.errors[0], /^c\.yaml: config file is not valid YAML or JSON/);
});

test('configHardFail itself of the wrong type counts as an error and the default (true) applies', () => {
  const r = withFile(V2 + 'configHardFail: "no"\nmode: bogus\n');
  assert.deepEqual(r.errors, [
    'configHardFail: must be a boolean (true or false), got string "no" (line 3)',
    'mode: unsupported value "bogus": must be "nftables" or "ipvs" or blank (blank means nftables) (line 4)',
  ]);
});
