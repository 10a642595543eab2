import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { applyIpvsSysctls, kernelVersion, planIpvsSysctls } from '../../src/app/ipvs-sysctls';

function procRoot(values: Record<string, number>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-ipvs-sysctl-'));
  for (const [name, v] of Object.entries(values)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), `${v}\n`);
  }
  return root;
}

const names = (strict: boolean, release: string): string[] => planIpvsSysctls(strict, release).map((s) => `${s.name}=${s.value}`);

test('kernelVersion reads major and minor', () => {
  assert.deepEqual(kernelVersion('6.1.0-56-amd64'), [6, 1]);
  assert.deepEqual(kernelVersion('5.10.0'), [5, 10]);
  assert.equal(kernelVersion('garbage'), undefined);
});

test('planIpvsSysctls: conn_reuse_mode only from 4.1 up to 5.9, ARP ones only with strictARP', () => {
  const common = ['net/ipv4/vs/conntrack=1', 'net/ipv4/vs/expire_nodest_conn=1', 'net/ipv4/vs/expire_quiescent_template=1', 'net/ipv4/ip_forward=1'];
  assert.deepEqual(names(false, '6.1.0-56-amd64'), common);
  assert.deepEqual(names(false, '5.9.0'), common);
  assert.deepEqual(names(false, '4.0.9'), common);
  assert.deepEqual(names(false, '5.4.0-150-generic'), [common[0], 'net/ipv4/vs/conn_reuse_mode=0', ...common.slice(1)]);
  assert.deepEqual(names(true, '6.1.0').slice(-2), ['net/ipv4/conf/all/arp_ignore=1', 'net/ipv4/conf/all/arp_announce=2']);
});

test('applyIpvsSysctls writes what differs, leaves what is right, and says why conn_reuse_mode was left', () => {
  const root = procRoot({
    'net/ipv4/vs/conntrack': 0, 'net/ipv4/vs/expire_nodest_conn': 1, 'net/ipv4/vs/expire_quiescent_template': 0,
    'net/ipv4/ip_forward': 0, 'net/ipv4/conf/all/arp_ignore': 0, 'net/ipv4/conf/all/arp_announce': 0,
  });
  const r = applyIpvsSysctls(true, '6.1.0', { procRoot: root });
  assert.equal(r.failure, undefined);
  assert.deepEqual(r.outcomes.map((o) => `${o.name}:${o.action}`), [
    'net/ipv4/vs/conntrack:set', 'net/ipv4/vs/expire_nodest_conn:unchanged', 'net/ipv4/vs/expire_quiescent_template:set',
    'net/ipv4/ip_forward:set', 'net/ipv4/conf/all/arp_ignore:set', 'net/ipv4/conf/all/arp_announce:set',
  ]);
  assert.equal(fs.readFileSync(path.join(root, 'net/ipv4/conf/all/arp_announce'), 'utf8').trim(), '2');
  assert.match(r.connReuseNote ?? '', /5\.9 or newer/);
});

test('applyIpvsSysctls stops at the first value it cannot write and names it (upstream fails to start)', () => {
  const root = procRoot({ 'net/ipv4/vs/conntrack': 1 });
  fs.mkdirSync(path.join(root, 'net/ipv4/vs/expire_nodest_conn'));  // a directory cannot be written as a file
  const r = applyIpvsSysctls(false, '6.1.0', { procRoot: root });
  assert.match(r.failure ?? '', /^cannot set sysctl net\/ipv4\/vs\/expire_nodest_conn=1 \(connections to a deleted real server/);
  assert.equal(r.outcomes.length, 2);
});
