// Command-line flags: pflag syntax, upstream names and types, errors naming the flag, and the
// precedence between flags and --config.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandLine } from '../../src/config';
import { memIo, V1, V2, withFile } from './helpers';

const run = (...argv: string[]) => parseCommandLine(argv, memIo({}));

function ok(...argv: string[]) {
  const r = run(...argv);
  assert.deepEqual(r.errors, [], argv.join(' '));
  return r.config;
}

test('flag syntax: --x=v, --x v, bools, -v forms, durations, lists, maps', () => {
  assert.equal(ok('--proxy-mode=ipvs').mode, 'ipvs');
  assert.equal(ok('--proxy-mode', 'ipvs').mode, 'ipvs');
  assert.equal(ok('--masquerade-all').linux.masqueradeAll, true);
  assert.equal(ok('--masquerade-all=false').linux.masqueradeAll, false);
  assert.equal(ok('--masquerade-all=T').linux.masqueradeAll, true);
  assert.equal(ok('-v=4').logging.verbosity, 4);
  assert.equal(ok('-v', '5').logging.verbosity, 5);
  assert.equal(ok('-v3').logging.verbosity, 3);
  assert.equal(ok('--v=2').logging.verbosity, 2);
  assert.equal(ok('--iptables-sync-period=1m30s').syncPeriod, 90_000);
  assert.equal(ok('--config-sync-period', '2h').configSyncPeriod, 7_200_000);
  assert.deepEqual(ok('--nodeport-addresses=10.0.0.0/8,fd00::/64').nodePortAddresses, ['10.0.0.0/8', 'fd00::/64']);
  assert.deepEqual(ok('--ipvs-exclude-cidrs=10.0.0.0/8', '--ipvs-exclude-cidrs=11.0.0.0/8').ipvs.excludeCIDRs, ['10.0.0.0/8', '11.0.0.0/8']);
  assert.deepEqual(ok('--feature-gates=A=true,B=false', '--feature-gates=C=true').featureGates, { A: true, B: false, C: true });
  assert.equal(ok('--iptables-masquerade-bit=0x0e').iptables.masqueradeBit, 14);
  assert.equal(ok('--kube-api-qps=7.5').clientConnection.qps, 7.5);
  assert.equal(ok('--kube-api-burst', '20').clientConnection.burst, 20);
  assert.equal(ok('--proxy-mode=ipvs', '--proxy-mode=nftables').mode, 'nftables', 'the last one wins');
});

test('underscores in a flag name read as dashes, as upstream normalises them', () => {
  assert.deepEqual(ok('--cluster_cidr=10.0.0.0/8').detectLocal.clusterCIDRs, ['10.0.0.0/8']);
  assert.equal(ok('--proxy_mode', 'ipvs').mode, 'ipvs');
  assert.equal(ok('--masquerade_all').linux.masqueradeAll, true);
  assert.deepEqual(run('--no_such_flag=1').errors, ['unknown flag: --no_such_flag']);
});

test('each flag sets its field', () => {
  const cases: [string[], (c: ReturnType<typeof ok>) => unknown, unknown][] = [
    [['--kubeconfig=/k'], (c) => c.clientConnection.kubeconfig, '/k'],
    [['--kube-api-content-type=application/json'], (c) => c.clientConnection.contentType, 'application/json'],
    [['--hostname-override=  Node-A '], (c) => c.hostnameOverride, 'node-a'],
    [['--bind-address=10.0.0.7'], (c) => c.nodeIPOverride, ['10.0.0.7']],
    [['--bind-address=0.0.0.0'], (c) => c.nodeIPOverride, []],
    [['--bind-address-hard-fail'], (c) => c.bindAddressHardFail, true],
    [['--healthz-bind-address=127.0.0.1:9999'], (c) => c.healthzBindAddress, '127.0.0.1:9999'],
    [['--healthz-bind-address=10.0.0.1'], (c) => c.healthzBindAddress, '10.0.0.1:10256'],
    [['--metrics-bind-address=0.0.0.0:10249'], (c) => c.metricsBindAddress, '0.0.0.0:10249'],
    [['--metrics-bind-address='], (c) => c.metricsBindAddress, ''],
    [['--metrics-port=0'], (c) => c.metricsBindAddress, ''],
    [['--cluster-cidr=10.0.0.0/8,fd00::/48'], (c) => c.detectLocal.clusterCIDRs, ['10.0.0.0/8', 'fd00::/48']],
    [['--detect-local-mode=InterfaceNamePrefix', '--pod-interface-name-prefix=veth'], (c) => c.detectLocal.interfaceNamePrefix, 'veth'],
    [['--detect-local-mode=BridgeInterface', '--pod-bridge-interface=cbr0'], (c) => c.detectLocalMode, 'BridgeInterface'],
    [['--oom-score-adj=-100'], (c) => c.linux.oomScoreAdj, -100],
    [['--conntrack-max-per-core=0'], (c) => c.linux.conntrack.maxPerCore, 0],
    [['--conntrack-min=1000'], (c) => c.linux.conntrack.min, 1000],
    [['--conntrack-tcp-timeout-established=1h'], (c) => c.linux.conntrack.tcpEstablishedTimeout, 3_600_000],
    [['--conntrack-tcp-timeout-close-wait=30m'], (c) => c.linux.conntrack.tcpCloseWaitTimeout, 1_800_000],
    [['--conntrack-tcp-be-liberal'], (c) => c.linux.conntrack.tcpBeLiberal, true],
    [['--conntrack-udp-timeout=30s'], (c) => c.linux.conntrack.udpTimeout, 30_000],
    [['--conntrack-udp-timeout-stream=2m'], (c) => c.linux.conntrack.udpStreamTimeout, 120_000],
    [['--iptables-min-sync-period=0s'], (c) => c.minSyncPeriod, 0],
    [['--iptables-localhost-nodeports=false'], (c) => c.iptables.localhostNodePorts, false],
    [['--iptables-masquerade-bit=5'], (c) => c.ipvs.masqueradeBit, 5],
    [['--proxy-mode=ipvs', '--ipvs-sync-period=20s'], (c) => c.syncPeriod, 20_000],
    [['--ipvs-sync-period=20s', '--proxy-mode=ipvs'], (c) => c.syncPeriod, 20_000],
    [['--ipvs-sync-period=20s'], (c) => c.syncPeriod, 30_000],
    [['--proxy-mode=ipvs', '--iptables-sync-period=20s'], (c) => c.syncPeriod, 30_000],
    [['--proxy-mode=nftables', '--iptables-sync-period=20s'], (c) => c.syncPeriod, 20_000],
    [['--proxy-mode=ipvs', '--ipvs-min-sync-period=3s'], (c) => c.minSyncPeriod, 3000],
    [['--ipvs-scheduler=wrr'], (c) => c.ipvs.scheduler, 'wrr'],
    [['--ipvs-strict-arp'], (c) => c.ipvs.strictARP, true],
    [['--ipvs-tcp-timeout=5s'], (c) => c.ipvs.tcpTimeout, 5000],
    [['--ipvs-tcpfin-timeout=6s'], (c) => c.ipvs.tcpFinTimeout, 6000],
    [['--ipvs-udp-timeout=7s'], (c) => c.ipvs.udpTimeout, 7000],
    [['--logging-format=text'], (c) => c.logging.format, 'text'],
    [['--profiling'], (c) => c.enableProfiling, true],
    [['--show-hidden-metrics-for-version=1.33'], (c) => c.showHiddenMetricsForVersion, '1.33'],
  ];
  for (const [argv, pick, want] of cases) assert.deepEqual(pick(ok(...argv)), want, argv.join(' '));
});

test('actions and command flags', () => {
  assert.equal(run().action, 'run');
  assert.equal(run('--cleanup').action, 'cleanup');
  assert.equal(run('--version').action, 'version');
  assert.equal(run('--version=raw').versionRaw, true);
  assert.equal(run('--help').action, 'help');
  assert.equal(run('-h').action, 'help');
  assert.equal(run('--master=https://10.0.0.1:6443').master, 'https://10.0.0.1:6443');
  assert.equal(run('--init-only').initOnly, true);
  const w = run('--write-config-to=/tmp/out.yaml');
  assert.equal(w.action, 'write-config');
  assert.equal(w.output?.path, '/tmp/out.yaml');
});

test('--dry-run and --diff: an action of their own; --diff only with --dry-run; --dry-run alone among the commands', () => {
  const d = run('--dry-run');
  assert.deepEqual([d.action, d.diff, d.errors], ['dry-run', false, []]);
  const diff = run('--dry-run', '--diff');
  assert.deepEqual([diff.action, diff.diff, diff.errors], ['dry-run', true, []]);
  assert.deepEqual(run('--diff').errors, ['--diff: only with --dry-run (it prints what a sync would change)']);
  assert.deepEqual(run('--dry-run=false', '--diff').errors, ['--diff: only with --dry-run (it prints what a sync would change)']);
  assert.deepEqual(run('--dry-run', '--cleanup').errors, ['--dry-run: cannot be combined with --cleanup']);
  assert.deepEqual(run('--dry-run', '--init-only', '--write-config-to=/tmp/x').errors,
    ['--dry-run: cannot be combined with --init-only', '--dry-run: cannot be combined with --write-config-to']);
  assert.equal(run('--dry-run', '--proxy-mode=ipvs').action, 'dry-run', 'the mode is judged when it runs (src/commands/dry-run.ts)');
  const f = parseCommandLine(['--config=/c.yaml', '--dry-run', '--diff'], memIo({ '/c.yaml': V1 }));
  assert.deepEqual([f.action, f.diff, f.errors, f.warnings], ['dry-run', true, [], []], 'command flags are not ignored with --config');
});

test('flags without --config start from the v1alpha1 defaults, as upstream', () => {
  const c = ok();
  assert.equal(c.iptables.localhostNodePorts, true);
  assert.equal(c.bindAddressHardFail, false);
  assert.equal(c.configHardFail, true);
});

test('bad flags are errors naming the flag', () => {
  const cases: [string[], string][] = [
    [['--no-such-flag'], 'unknown flag: --no-such-flag'],
    [['-x'], "unknown shorthand flag: 'x' in -x"],
    [['-config=a.yaml'], "unknown shorthand flag: 'c' in -config=a.yaml"],
    [['--config'], 'flag needs an argument: --config'],
    [['-v'], "flag needs an argument: 'v' in -v"],
    [['--masquerade-all=maybe'], 'invalid argument "maybe" for "--masquerade-all" flag: must be a boolean (true or false)'],
    [['--iptables-masquerade-bit=high'], 'invalid argument "high" for "--iptables-masquerade-bit" flag: must be an integer'],
    [['--oom-score-adj=99999999999'], 'invalid argument "99999999999" for "--oom-score-adj" flag: value out of range for int32'],
    [['--iptables-sync-period=10'], 'invalid argument "10" for "--iptables-sync-period" flag: invalid duration "10": missing unit'],
    [['--ipvs-tcp-timeout=5 s'], 'invalid argument "5 s" for "--ipvs-tcp-timeout" flag: invalid duration "5 s": unknown unit " s"'],
    [['-v=high'], 'invalid argument "high" for "-v, --v" flag: must be a non-negative integer'],
    [['--kube-api-qps=fast'], 'invalid argument "fast" for "--kube-api-qps" flag: must be a number'],
    [['--feature-gates=A'], 'invalid argument "A" for "--feature-gates" flag: missing bool value for A'],
    [['--feature-gates=A=yes'], 'invalid argument "A=yes" for "--feature-gates" flag: invalid value of A: yes, must be true or false'],
    [['--bind-address=10.0.0.300'], 'invalid argument "10.0.0.300" for "--bind-address" flag: "10.0.0.300" is not a valid IP address'],
    [['--healthz-bind-address=localhost:1'], 'invalid argument "localhost:1" for "--healthz-bind-address" flag: "localhost:1" is not in a valid format (ip or ip:port)'],
    [['stray'], 'unexpected argument "stray": kube-proxy takes no arguments, only flags'],
    [['--', 'stray'], 'unexpected argument "stray": kube-proxy takes no arguments, only flags'],
    // Well-formed values that validation refuses name the flag they came from.
    [['--iptables-masquerade-bit=32'], '--iptables-masquerade-bit: must be within the range [0, 31], got 32'],
    [['--proxy-mode=userspace'], '--proxy-mode: unsupported value "userspace": must be "nftables" or "ipvs" or blank (blank means nftables)'],
    [['--cluster-cidr=10.0.0.0'], '--cluster-cidr: must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48), got "10.0.0.0"'],
    [['--oom-score-adj=-1001'], '--oom-score-adj: must be within the range [-1000, 1000], got -1001'],
    [['--config-sync-period=-1s'], '--config-sync-period: must be greater than 0'],
    [['--logging-format=xml'], '--logging-format: unsupported log format "xml": must be json or text'],
    [['--hostname-override=   '], '--hostname-override: must not be blank'],
    [['--config=missing.yaml'], `--config: cannot read "missing.yaml": ENOENT: no such file or directory, open 'missing.yaml'`],
  ];
  for (const [argv, message] of cases) assert.deepEqual(run(...argv).errors, [message], argv.join(' '));
});

test('precedence with --config: the file wins over config flags, which are reported as ignored', () => {
  const r = withFile(V2 + 'mode: ipvs\nsyncPeriod: 40s\n', '--proxy-mode=nftables', '--iptables-sync-period=5s', '--masquerade-all');
  assert.deepEqual(r.errors, []);
  assert.equal(r.config.mode, 'ipvs');
  assert.equal(r.config.syncPeriod, 40_000);
  assert.equal(r.config.linux.masqueradeAll, false);
  assert.deepEqual(r.warnings, [
    '--proxy-mode is ignored because --config is given (as in upstream kube-proxy); set it in c.yaml',
    '--iptables-sync-period is ignored because --config is given (as in upstream kube-proxy); set it in c.yaml',
    '--masquerade-all is ignored because --config is given (as in upstream kube-proxy); set it in c.yaml',
  ]);
});

test('precedence with --config: logging flags and --hostname-override win when set', () => {
  const file = V1 + 'hostnameOverride: from-file\nlogging:\n  verbosity: 1\n  format: json\n';
  const plain = withFile(file);
  assert.equal(plain.config.hostnameOverride, 'from-file');
  assert.equal(plain.config.logging.verbosity, 1);
  const r = withFile(file, '-v=5', '--logging-format=text', '--hostname-override=From-Flag');
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.warnings, []);
  assert.equal(r.config.logging.verbosity, 5);
  assert.equal(r.config.logging.format, 'text');
  assert.equal(r.config.hostnameOverride, 'from-flag');
});

test('a logging flag error under --config names the flag, not the file', () => {
  assert.deepEqual(withFile(V2, '--logging-format=xml').errors, ['--logging-format: unsupported log format "xml": must be json or text']);
});
