// compileDesiredTables: every family's table for a snapshot, as a full sync compiles it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileDesiredTables, leaveOut } from '../../../src/proxier/nftables';
import { setNamesOf } from '../../../src/proxier/nftables/compile-base';
import type { CompileOptions } from '../../../src/proxier/nftables';
import { ep, fourServices, snapshot, sp } from './fixtures';

/** proxierOptions' settings, without the kernel handle a compile does not need. */
const options: CompileOptions = {
  families: ['ip', 'ip6'], masqueradeBit: 14, masqueradeAll: false,
  localDetector: { mode: 'ClusterCIDR', cidrs: ['10.0.0.0/16', 'fd00:10::/48'] }, nodePortAddresses: [], nodeIPs: [],
};

test('one table per family, in the options\' order, each with its family\'s ServicePorts in key order', () => {
  const { entries } = fourServices();
  const { tables, refused } = compileDesiredTables(options, snapshot(entries));
  assert.deepEqual(tables.map((t) => t.family), ['ip', 'ip6']);
  assert.deepEqual(tables[0].services.map((s) => s.key), ['ns1/svc1:p80/TCP', 'ns1/svc2:p80/TCP', 'ns1/svc3:p80/TCP']);
  assert.deepEqual(tables[1].services.map((s) => s.key), ['ns1/svc6:p80/TCP']);
  assert.equal(refused.size, 0);
  // The base has the endpoint maps its ServicePorts' elements use, and no other.
  for (const t of tables) {
    const maps = t.base.sets.map((s) => s.name).filter((n) => /^endpoints-\d+$/.test(n)).sort();
    assert.deepEqual(maps, [...setNamesOf(t.services)].filter((n) => /^endpoints-\d+$/.test(n)).sort(), t.family);
  }
});

test('a ServicePort the compiler refuses is left out, with the reason, and the others are compiled', () => {
  const { entries } = fourServices();
  const bad = sp('bad', { clusterIP: '172.30.0.99', port: 70000 });
  const { tables, refused } = compileDesiredTables(options, snapshot([...entries, [bad, [ep('10.180.9.9')]]]));
  assert.deepEqual([...refused], [['ns1/bad:p80/TCP', 'ServicePort ns1/bad:p80/TCP: port: invalid port 70000']]);
  assert.equal(tables[0].services.length, 3);
});

test('leaveOut: the table without one ServicePort, its endpoint maps following those still in use', () => {
  const { entries } = fourServices();
  const [ip] = compileDesiredTables(options, snapshot(entries)).tables;
  const maps = (t: typeof ip) => t.base.sets.map((s) => s.name).filter((n) => /^endpoints-\d+$/.test(n)).sort();
  assert.deepEqual(maps(ip), ['endpoints-1', 'endpoints-2']);
  const without = leaveOut(ip, 'ns1/svc1:p80/TCP');
  assert.deepEqual(without.services.map((s) => s.key), ['ns1/svc2:p80/TCP', 'ns1/svc3:p80/TCP']);
  assert.deepEqual(maps(leaveOut(without, 'ns1/svc3:p80/TCP')), ['endpoints-1'], 'svc1 and svc3 were the only ones with two endpoints');
  assert.deepEqual(maps(without), ['endpoints-1', 'endpoints-2'], 'svc3 (affinity) still has two');
  assert.equal(ip.services.length, 3, 'the table it came from is unchanged');
});
