import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { applyConntrackSysctls, conntrackMax, HASHSIZE, planConntrackSysctls } from '../../src/conntrack/sysctls';
import type { ConntrackConfig } from '../../src/config/types';
import { withNetns } from '../helpers/netns';

const H = 3600_000;
const defaults: ConntrackConfig = {
  maxPerCore: 32768, min: 131072, tcpEstablishedTimeout: 24 * H, tcpCloseWaitTimeout: 1 * H,
  tcpBeLiberal: false, udpTimeout: 0, udpStreamTimeout: 0,
};

test('conntrackMax: max(min, maxPerCore x cpus), 0 when maxPerCore is 0', () => {
  const rows: Array<[number, number, number, number]> = [
    // maxPerCore, min, cpus, want
    [32768, 131072, 2, 131072],
    [32768, 131072, 8, 262144],
    [0, 131072, 8, 0],
    [100, 0, 3, 300],
  ];
  for (const [maxPerCore, min, cpus, want] of rows) assert.equal(conntrackMax({ maxPerCore, min }, cpus), want, `${maxPerCore},${min},${cpus}`);
});

test('planConntrackSysctls: defaults write max, hashsize and the two TCP timeouts in seconds', () => {
  assert.deepEqual(planConntrackSysctls(defaults, 8), [
    { name: 'net/netfilter/nf_conntrack_max', value: 262144, raiseOnly: true, root: 'proc' },
    { name: HASHSIZE, value: 65536, raiseOnly: true, root: 'sys' },
    { name: 'net/netfilter/nf_conntrack_tcp_timeout_established', value: 86400, raiseOnly: false, root: 'proc' },
    { name: 'net/netfilter/nf_conntrack_tcp_timeout_close_wait', value: 3600, raiseOnly: false, root: 'proc' },
  ]);
});

test('planConntrackSysctls: zero values are skipped; UDP timeouts and be_liberal when set', () => {
  const plan = planConntrackSysctls({ ...defaults, maxPerCore: 0, tcpEstablishedTimeout: 0, tcpCloseWaitTimeout: 0, udpTimeout: 30_000, udpStreamTimeout: 120_500, tcpBeLiberal: true }, 4);
  assert.deepEqual(plan.map((w) => [w.name, w.value]), [
    ['net/netfilter/nf_conntrack_udp_timeout', 30],
    ['net/netfilter/nf_conntrack_udp_timeout_stream', 120],
    ['net/netfilter/nf_conntrack_tcp_be_liberal', 1],
  ]);
});

const tempDirs: string[] = [];
after(() => {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

function fakeRoots(values: Record<string, string>): { proc: string; sys: string } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-sysctl-'));
  tempDirs.push(base);
  for (const [rel, v] of Object.entries(values)) {
    const file = path.join(base, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, v);
  }
  return { proc: path.join(base, 'proc'), sys: path.join(base, 'sys') };
}

test('applyConntrackSysctls: raises max and hashsize, never lowers them; timeouts follow the config', () => {
  const roots = fakeRoots({
    'proc/net/netfilter/nf_conntrack_max': '65536\n',
    'proc/net/netfilter/nf_conntrack_tcp_timeout_established': '432000\n',
    'proc/net/netfilter/nf_conntrack_tcp_timeout_close_wait': '3600\n',
    [`sys/${HASHSIZE}`]: '16384\n',
  });
  const out = applyConntrackSysctls(defaults, { procRoot: roots.proc, sysRoot: roots.sys, cpus: 2 });
  assert.deepEqual(out.map((o) => [o.name.split('/').pop(), o.action, o.previous]), [
    ['nf_conntrack_max', 'set', 65536],
    ['hashsize', 'set', 16384],
    ['nf_conntrack_tcp_timeout_established', 'set', 432000],
    ['nf_conntrack_tcp_timeout_close_wait', 'unchanged', 3600],
  ]);
  const read = (rel: string): string => fs.readFileSync(path.join(roots.proc, rel), 'utf8').trim();
  assert.equal(read('net/netfilter/nf_conntrack_max'), '131072');
  assert.equal(fs.readFileSync(path.join(roots.sys, HASHSIZE), 'utf8').trim(), '32768');
  assert.equal(read('net/netfilter/nf_conntrack_tcp_timeout_established'), '86400');

  const bigger = fakeRoots({ 'proc/net/netfilter/nf_conntrack_max': '1000000\n', [`sys/${HASHSIZE}`]: '262144\n' });
  const again = applyConntrackSysctls({ ...defaults, tcpEstablishedTimeout: 0, tcpCloseWaitTimeout: 0 }, { procRoot: bigger.proc, sysRoot: bigger.sys, cpus: 2 });
  assert.deepEqual(again.map((o) => o.action), ['unchanged', 'unchanged']);
  assert.equal(fs.readFileSync(path.join(bigger.proc, 'net/netfilter/nf_conntrack_max'), 'utf8').trim(), '1000000');
});

test('applyConntrackSysctls: an unwritable value is reported and the others still applied', () => {
  // A directory where the file should be: the write fails even for root.
  const roots = fakeRoots({ 'proc/net/netfilter/nf_conntrack_tcp_timeout_close_wait': '60\n' });
  fs.mkdirSync(path.join(roots.proc, 'net/netfilter/nf_conntrack_tcp_timeout_established'), { recursive: true });
  const out = applyConntrackSysctls({ ...defaults, maxPerCore: 0 }, { procRoot: roots.proc, sysRoot: roots.sys, cpus: 1 });
  assert.equal(out[0].action, 'failed');
  assert.match(out[0].error ?? '', /nf_conntrack_tcp_timeout_established/);
  assert.equal(out[1].action, 'set');
  assert.equal(fs.readFileSync(path.join(roots.proc, 'net/netfilter/nf_conntrack_tcp_timeout_close_wait'), 'utf8').trim(), '3600');
});

const hostValue = (name: string): string => fs.readFileSync(`/proc/sys/net/netfilter/${name}`, 'utf8').trim();

test('applyConntrackSysctls in a fresh netns: per-netns values set there, global max refused and reported, host untouched', async () => {
  const names = ['nf_conntrack_max', 'nf_conntrack_tcp_timeout_established', 'nf_conntrack_tcp_timeout_close_wait', 'nf_conntrack_udp_timeout', 'nf_conntrack_tcp_be_liberal'];
  const before = names.map(hostValue);
  await withNetns((ns) => {
    const sysRoot = fakeRoots({ [`sys/${HASHSIZE}`]: '1024\n' }).sys;
    // Asks for far more than any host has, so the write of the global max is really attempted.
    const config: ConntrackConfig = { ...defaults, maxPerCore: 1 << 24, tcpEstablishedTimeout: 12345_000, tcpCloseWaitTimeout: 4321_000, udpTimeout: 45_000, tcpBeLiberal: true };
    const script = `const s = require(${JSON.stringify(path.resolve(__dirname, '../../src/conntrack/sysctls.js'))});
      process.stdout.write(JSON.stringify(s.applyConntrackSysctls(${JSON.stringify(config)}, { sysRoot: ${JSON.stringify(sysRoot)}, cpus: 2 })));`;
    const out = JSON.parse(ns.exec(process.execPath, ['-e', script])) as Array<{ name: string; action: string; error?: string }>;
    const byName = new Map(out.map((o) => [o.name.split('/').pop(), o]));
    assert.equal(byName.get('nf_conntrack_max')?.action, 'failed');
    assert.match(byName.get('nf_conntrack_max')?.error ?? '', /EACCES|EPERM|permission/i);
    assert.equal(byName.has('hashsize'), false, 'hashsize is not sized when the max was refused');
    for (const n of ['nf_conntrack_tcp_timeout_established', 'nf_conntrack_tcp_timeout_close_wait', 'nf_conntrack_udp_timeout', 'nf_conntrack_tcp_be_liberal']) {
      assert.equal(byName.get(n)?.action, 'set', n);
    }
    const inNs = (n: string): string => ns.exec('cat', [`/proc/sys/net/netfilter/${n}`]).trim();
    assert.equal(inNs('nf_conntrack_tcp_timeout_established'), '12345');
    assert.equal(inNs('nf_conntrack_tcp_timeout_close_wait'), '4321');
    assert.equal(inNs('nf_conntrack_udp_timeout'), '45');
    assert.equal(inNs('nf_conntrack_tcp_be_liberal'), '1');
  });
  assert.deepEqual(names.map(hostValue), before, 'host values unchanged');
});
