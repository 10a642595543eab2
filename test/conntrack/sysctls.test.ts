import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { conntrackMax, HASHSIZE, planConntrackSysctls, READ_ONLY_SYSFS_EVENT, setupConntrackSysctls, sysfsWritable } from '../../src/conntrack/sysctls';
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

test('planConntrackSysctls (upstream setupConntrack, #142035): nf_conntrack_max only raised, then the two TCP timeouts in seconds', () => {
  assert.deepEqual(planConntrackSysctls(defaults, 8), [
    { name: 'net/netfilter/nf_conntrack_max', value: 262144, raiseOnly: true, root: 'proc' },
    { name: 'net/netfilter/nf_conntrack_tcp_timeout_established', value: 86400, raiseOnly: false, root: 'proc' },
    { name: 'net/netfilter/nf_conntrack_tcp_timeout_close_wait', value: 3600, raiseOnly: false, root: 'proc' },
  ]);
});

test('planConntrackSysctls: zero values are skipped; be_liberal, then the UDP timeouts, in upstream\'s order', () => {
  const plan = planConntrackSysctls({ ...defaults, maxPerCore: 0, tcpEstablishedTimeout: 0, tcpCloseWaitTimeout: 0, udpTimeout: 30_000, udpStreamTimeout: 120_500, tcpBeLiberal: true }, 4);
  assert.deepEqual(plan.map((w) => [w.name, w.value]), [
    ['net/netfilter/nf_conntrack_tcp_be_liberal', 1],
    ['net/netfilter/nf_conntrack_udp_timeout', 30],
    ['net/netfilter/nf_conntrack_udp_timeout_stream', 120],
  ]);
});

test('isSysFSWritable: the first sysfs mount decides, by its first option', () => {
  assert.equal(sysfsWritable('proc /proc proc rw 0 0\nsysfs /sys sysfs rw,nosuid 0 0\n'), true);
  assert.equal(sysfsWritable('sysfs /sys sysfs ro,nosuid,nodev 0 0\nsysfs /x sysfs rw 0 0\n'), false);
  assert.equal(sysfsWritable('proc /proc proc rw 0 0\n'), 'no sysfs mounted');
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

const RW = 'sysfs /sys sysfs rw,nosuid,nodev,noexec 0 0\n';
const RO = 'sysfs /sys sysfs ro,nosuid,nodev,noexec 0 0\n';

function setup(values: Record<string, string>, mounts: string, config: ConntrackConfig = defaults, cpus = 2) {
  const roots = fakeRoots({ ...values, 'mounts': mounts });
  const r = setupConntrackSysctls(config, { procRoot: roots.proc, sysRoot: roots.sys, mountsFile: path.join(roots.proc, '..', 'mounts'), cpus });
  const read = (rel: string): string => fs.readFileSync(path.join(rel.startsWith('sys/') ? path.dirname(roots.sys) : path.dirname(roots.proc), rel), 'utf8').trim();
  return { r, read };
}

test('setupConntrack: a smaller nf_conntrack_max is raised, hashsize raised to max/4; timeouts follow the config', () => {
  const { r, read } = setup({
    'proc/net/netfilter/nf_conntrack_max': '65536\n',
    'proc/net/netfilter/nf_conntrack_tcp_timeout_established': '432000\n',
    'proc/net/netfilter/nf_conntrack_tcp_timeout_close_wait': '3600\n',
    [`sys/${HASHSIZE}`]: '16384\n',
  }, RW);
  assert.equal(r.fatal, undefined);
  assert.equal(r.readOnlySysFS, undefined);
  assert.deepEqual(r.outcomes.map((o) => [o.name.split('/').pop(), o.action, o.previous]), [
    ['nf_conntrack_max', 'set', 65536],
    ['hashsize', 'set', 16384],
    ['nf_conntrack_tcp_timeout_established', 'set', 432000],
    ['nf_conntrack_tcp_timeout_close_wait', 'unchanged', 3600],
  ]);
  assert.equal(read('proc/net/netfilter/nf_conntrack_max'), '131072');
  assert.equal(read(`sys/${HASHSIZE}`), '32768');
  assert.equal(read('proc/net/netfilter/nf_conntrack_tcp_timeout_established'), '86400');
});

test('setupConntrack: a larger nf_conntrack_max is left alone, as upstream since #142035 (a node tuned higher by hand)', () => {
  const { r, read } = setup({ 'proc/net/netfilter/nf_conntrack_max': '1000000\n', [`sys/${HASHSIZE}`]: '262144\n' }, RO,
    { ...defaults, tcpEstablishedTimeout: 0, tcpCloseWaitTimeout: 0 });
  assert.equal(r.fatal, undefined);
  assert.deepEqual(r.outcomes.map((o) => [o.name.split('/').pop(), o.action]), [['nf_conntrack_max', 'unchanged']]);
  assert.equal(read('proc/net/netfilter/nf_conntrack_max'), '1000000');
});

test('setupConntrack: a hash table already big enough is left alone (never shrunk)', () => {
  const { r, read } = setup({ 'proc/net/netfilter/nf_conntrack_max': '131072\n', [`sys/${HASHSIZE}`]: '262144\n' }, RO,
    { ...defaults, tcpEstablishedTimeout: 0, tcpCloseWaitTimeout: 0 });
  assert.deepEqual(r.outcomes.map((o) => o.action), ['unchanged']);
  assert.equal(r.readOnlySysFS, undefined, 'no event when hashsize needs no write, even with /sys read-only');
  assert.equal(read(`sys/${HASHSIZE}`), '262144');
});

test('setupConntrack: read-only /sys when hashsize must grow is reported (upstream\'s Node event) and start-up goes on', () => {
  const { r, read } = setup({ 'proc/net/netfilter/nf_conntrack_max': '65536\n', [`sys/${HASHSIZE}`]: '1024\n',
    'proc/net/netfilter/nf_conntrack_tcp_timeout_established': '1\n', 'proc/net/netfilter/nf_conntrack_tcp_timeout_close_wait': '1\n' }, RO);
  assert.equal(r.fatal, undefined);
  assert.deepEqual(r.readOnlySysFS, READ_ONLY_SYSFS_EVENT);
  assert.equal(READ_ONLY_SYSFS_EVENT.reason, 'readOnlySysFS');
  assert.equal(READ_ONLY_SYSFS_EVENT.action, 'StartKubeProxy');
  assert.equal(READ_ONLY_SYSFS_EVENT.note, 'CRI error: /sys is read-only: cannot modify conntrack limits, problems may arise later (If running Docker, see docker issue #24000)');
  assert.equal(read(`sys/${HASHSIZE}`), '1024');
  assert.equal(read('proc/net/netfilter/nf_conntrack_max'), '131072');
  assert.equal(read('proc/net/netfilter/nf_conntrack_tcp_timeout_established'), '86400', 'the rest still applied');
});

test('setupConntrack: an unreadable hashsize, or no sysfs mounted, stops start-up', () => {
  const noHash = setup({ 'proc/net/netfilter/nf_conntrack_max': '1\n' }, RW);
  assert.match(noHash.r.fatal ?? '', /cannot read .*hashsize/);
  assert.equal(noHash.r.outcomes.length, 1, 'nothing after it is attempted');
  const noSysfs = setup({ 'proc/net/netfilter/nf_conntrack_max': '1\n', [`sys/${HASHSIZE}`]: '1\n' }, 'proc /proc proc rw 0 0\n');
  assert.equal(noSysfs.r.fatal, 'no sysfs mounted');
});

test('setupConntrack: a sysctl that cannot be written stops start-up; later ones are not attempted', () => {
  // A directory where the file should be: the write fails even for root.
  const roots = fakeRoots({ 'proc/net/netfilter/nf_conntrack_tcp_timeout_close_wait': '60\n' });
  fs.mkdirSync(path.join(roots.proc, 'net/netfilter/nf_conntrack_tcp_timeout_established'), { recursive: true });
  const r = setupConntrackSysctls({ ...defaults, maxPerCore: 0 }, { procRoot: roots.proc, sysRoot: roots.sys, cpus: 1 });
  assert.equal(r.outcomes.length, 1);
  assert.equal(r.outcomes[0].action, 'failed');
  assert.match(r.fatal ?? '', /nf_conntrack_tcp_timeout_established/);
  assert.equal(fs.readFileSync(path.join(roots.proc, 'net/netfilter/nf_conntrack_tcp_timeout_close_wait'), 'utf8').trim(), '60');
});

const hostValue = (name: string): string => fs.readFileSync(`/proc/sys/net/netfilter/${name}`, 'utf8').trim();

function inFreshNetns(ns: { exec(cmd: string, args: string[]): string }, config: ConntrackConfig, sysRoot: string) {
  const script = `const s = require(${JSON.stringify(path.resolve(__dirname, '../../src/conntrack/sysctls.js'))});
    process.stdout.write(JSON.stringify(s.setupConntrackSysctls(${JSON.stringify(config)}, { sysRoot: ${JSON.stringify(sysRoot)}, cpus: 2 })));`;
  return JSON.parse(ns.exec(process.execPath, ['-e', script])) as { outcomes: Array<{ name: string; action: string; error?: string }>; fatal?: string };
}

test('setupConntrack in a fresh netns (real kernel): the global max is refused and stops start-up; per-netns values set there; host untouched', async () => {
  const names = ['nf_conntrack_max', 'nf_conntrack_tcp_timeout_established', 'nf_conntrack_tcp_timeout_close_wait', 'nf_conntrack_udp_timeout', 'nf_conntrack_tcp_be_liberal'];
  const before = names.map(hostValue);
  await withNetns((ns) => {
    const sysRoot = fakeRoots({ [`sys/${HASHSIZE}`]: '1024\n' }).sys;
    const timeouts = { tcpEstablishedTimeout: 12345_000, tcpCloseWaitTimeout: 4321_000, udpTimeout: 45_000, tcpBeLiberal: true };
    // Asks for far more than any host has, so the write of the global max is really attempted.
    const refused = inFreshNetns(ns, { ...defaults, ...timeouts, maxPerCore: 1 << 24 }, sysRoot);
    assert.match(refused.fatal ?? '', /nf_conntrack_max.*(EACCES|EPERM|permission)/i);
    assert.equal(refused.outcomes.length, 1, 'nothing after the refused max is attempted');
    const ok = inFreshNetns(ns, { ...defaults, ...timeouts, maxPerCore: 0 }, sysRoot);
    assert.equal(ok.fatal, undefined);
    assert.deepEqual(ok.outcomes.map((o) => o.action), ['set', 'set', 'set', 'set']);
    const inNs = (n: string): string => ns.exec('cat', [`/proc/sys/net/netfilter/${n}`]).trim();
    assert.equal(inNs('nf_conntrack_tcp_timeout_established'), '12345');
    assert.equal(inNs('nf_conntrack_tcp_timeout_close_wait'), '4321');
    assert.equal(inNs('nf_conntrack_udp_timeout'), '45');
    assert.equal(inNs('nf_conntrack_tcp_be_liberal'), '1');
  });
  assert.deepEqual(names.map(hostValue), before, 'host values unchanged');
});
