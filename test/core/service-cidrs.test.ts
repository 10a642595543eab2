// ProxyState and the cluster's Service CIDRs: held sorted and unique, applied by takeChanges() like
// every other input, and a change asks for a sync (onServiceCIDRs returns true) without marking any
// Service changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProxyState } from '../../src/core/proxy-state';
import { recordingLogger, service } from './fixtures';

function state() {
  const log = recordingLogger();
  const ps = new ProxyState({ nodeName: 'node-a', ipFamilies: ['IPv4', 'IPv6'], log, startTime: new Date('2026-01-01T00:00:00Z') });
  return { ps, log };
}

test('the snapshot carries the Service CIDRs sorted and unique, once a sync has taken them', () => {
  const { ps } = state();
  assert.deepEqual(ps.snapshot().serviceCIDRs, [], 'none known yet');
  assert.equal(ps.onServiceCIDRs(['fd00:10:96::/108', '10.96.0.0/16', '10.100.0.0/24', '10.96.0.0/16']), true, 'a change asks for a sync');
  assert.deepEqual(ps.snapshot().serviceCIDRs, [], 'applied by takeChanges, not before');
  const t = ps.takeChanges();
  assert.deepEqual(t.snapshot.serviceCIDRs, ['10.100.0.0/24', '10.96.0.0/16', 'fd00:10:96::/108']);
  assert.equal(t.changes.services.size, 0, 'no Service is marked changed');
  assert.equal(t.topologyChanged, false);
  assert.deepEqual(ps.snapshot().serviceCIDRs, ['10.100.0.0/24', '10.96.0.0/16', 'fd00:10:96::/108']);
});

test('only a real change asks for a sync: same set in another order, and a change reverted before the sync, do not', () => {
  const { ps } = state();
  ps.onServiceCIDRs(['10.96.0.0/16', 'fd00::/108']);
  ps.takeChanges();
  assert.equal(ps.onServiceCIDRs(['fd00::/108', '10.96.0.0/16', 'fd00::/108']), false);
  assert.equal(ps.onServiceCIDRs(['10.96.0.0/16']), true, 'a range removed');
  assert.equal(ps.onServiceCIDRs(['10.96.0.0/16', 'fd00::/108']), false, 'back to what the last sync has');
  assert.equal(ps.onServiceCIDRs(['10.96.0.0/16', '10.97.0.0/16', 'fd00::/108']), true, 'a range added');
  assert.deepEqual(ps.takeChanges().snapshot.serviceCIDRs, ['10.96.0.0/16', '10.97.0.0/16', 'fd00::/108']);
  assert.equal(ps.onServiceCIDRs([]), true, 'all gone');
  assert.deepEqual(ps.takeChanges().snapshot.serviceCIDRs, []);
});

test('a CIDR change travels with pending Service changes without disturbing them', () => {
  const { ps } = state();
  ps.onService('add', service('web'));
  ps.onServiceCIDRs(['10.96.0.0/16']);
  const t = ps.takeChanges();
  assert.deepEqual([...t.changes.services], ['ns/web:http/TCP/IPv4']);
  assert.deepEqual(t.snapshot.serviceCIDRs, ['10.96.0.0/16']);
  assert.equal(t.snapshot.services.size, 1);
});

test('entries that are not CIDRs are logged and left out', () => {
  const { ps, log } = state();
  assert.equal(ps.onServiceCIDRs(['10.96.0.0/16', 'bogus', '10.0.0.0/40', '10.0.0.1']), true);
  assert.deepEqual(ps.takeChanges().snapshot.serviceCIDRs, ['10.96.0.0/16']);
  assert.deepEqual(log.lines.map((l) => l.obj.cidr), ['bogus', '10.0.0.0/40', '10.0.0.1']);
  assert.ok(log.lines.every((l) => l.obj.kind === 'ServiceCIDR'));
  assert.equal(ps.onServiceCIDRs(['bogus']), true, 'garbage alone is no range: the one range is gone');
  assert.deepEqual(ps.takeChanges().snapshot.serviceCIDRs, []);
});
