// Every flag upstream kube-proxy accepts is accepted (issue 13), the logging ones behave as
// component-base logs/api/v1 validates them, and the flags without effect here are named at start-up
// in one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NO_EFFECT_NOTICE_PREFIX, noEffectReasons, parseCommandLine, startupNotices } from '../../src/config';
import { allFlagSpecs } from '../../src/config/flags';
import { memIo, V2, withFile } from './helpers';

const run = (...argv: string[]) => parseCommandLine(argv, memIo({}));

/** upstream v1.34/v1.35 on Linux: cmd/kube-proxy/app/options.go AddFlags, component-base logs/api/v1
 *  addFlags (json registered), the Go flag set server.go adds ("for --boot-id-file and --machine-id-file",
 *  cadvisor's, normalised by WordSepNormalizeFunc), cobra's --help and verflag's --version. */
const UPSTREAM_FLAGS = [
  'config', 'write-config-to', 'cleanup', 'feature-gates', 'kubeconfig', 'master', 'kube-api-content-type', 'kube-api-burst',
  'kube-api-qps', 'hostname-override', 'bind-address', 'healthz-bind-address', 'metrics-bind-address', 'bind-address-hard-fail',
  'profiling', 'show-hidden-metrics-for-version', 'init-only', 'proxy-mode', 'iptables-masquerade-bit', 'masquerade-all',
  'iptables-localhost-nodeports', 'iptables-sync-period', 'iptables-min-sync-period', 'ipvs-sync-period', 'ipvs-min-sync-period',
  'ipvs-scheduler', 'ipvs-exclude-cidrs', 'ipvs-strict-arp', 'ipvs-tcp-timeout', 'ipvs-tcpfin-timeout', 'ipvs-udp-timeout',
  'detect-local-mode', 'pod-bridge-interface', 'pod-interface-name-prefix', 'cluster-cidr', 'nodeport-addresses', 'oom-score-adj',
  'conntrack-max-per-core', 'conntrack-min', 'conntrack-tcp-timeout-established', 'conntrack-tcp-timeout-close-wait',
  'conntrack-tcp-be-liberal', 'conntrack-udp-timeout', 'conntrack-udp-timeout-stream', 'config-sync-period', 'healthz-port',
  'metrics-port',
  'logging-format', 'log-flush-frequency', 'v', 'vmodule', 'log-text-split-stream', 'log-text-info-buffer-size',
  'log-json-split-stream', 'log-json-info-buffer-size',
  'boot-id-file', 'machine-id-file', 'help', 'version',
];

/** Commands of our own, which upstream has not: they only read, and print. */
const OWN_FLAGS = ['dry-run', 'diff'];

test('the flag set is upstream\'s (options.go, logs/api/v1, cadvisor\'s two, help, version) and our own commands: none missing, none extra', () => {
  const ours = allFlagSpecs().map((s) => s.name).sort();
  assert.deepEqual(ours, [...UPSTREAM_FLAGS, ...OWN_FLAGS].sort());
});

test('the flags that used to be rejected are accepted, in upstream\'s spellings too', () => {
  const gate = '--feature-gates=LoggingAlphaOptions=true';
  const c = (...argv: string[]) => {
    const r = run(...argv);
    assert.deepEqual(r.errors, [], argv.join(' '));
    return r.config;
  };
  assert.equal(c(gate, '--log-text-split-stream').logging.options.text.splitStream, true);
  assert.equal(c(gate, '--log-json-split-stream=true').logging.options.json.splitStream, true);
  assert.equal(c(gate, '--log-json-info-buffer-size=1Mi').logging.options.json.infoBufferSize, '1Mi');
  assert.equal(c(gate, '--log_text_info_buffer_size', '512').logging.options.text.infoBufferSize, '512');
  c('--boot_id_file=/proc/sys/kernel/random/boot_id', '--machine_id_file=/etc/machine-id');
  c('--log-text-info-buffer-size=0', '--log-text-split-stream=false');
});

test('logs/api/v1 Validate: split stream and a buffer size are alpha (LoggingAlphaOptions); vmodule is text-only', () => {
  assert.deepEqual(run('--log-text-split-stream').errors, ['--log-text-split-stream: Forbidden: Feature LoggingAlphaOptions is disabled']);
  assert.deepEqual(run('--log-json-info-buffer-size=4Ki').errors, ['--log-json-info-buffer-size: Forbidden: Feature LoggingAlphaOptions is disabled']);
  assert.match(run('--log-json-info-buffer-size=lots').errors[0], /^invalid argument "lots" for "--log-json-info-buffer-size" flag: quantities must match/);
  assert.deepEqual(run('--logging-format=json', '--vmodule=proxier*=4').errors, ['--vmodule: Forbidden: Only supported for text log format']);
  assert.deepEqual(run('--vmodule=proxier*=4').errors, [], 'text (the default) takes vmodule');
  const file = withFile(V2 + 'featureGates:\n  LoggingAlphaOptions: true\nlogging:\n  options:\n    json:\n      splitStream: true\n', '--logging-format=json');
  assert.deepEqual(file.errors, []);
  assert.equal(file.config.logging.options.json.splitStream, true);
});

test('--logging-format defaults to text, as upstream (SetRecommendedLoggingConfiguration)', () => {
  assert.equal(run().config.logging.format, 'text');
  assert.equal(withFile(V2).config.logging.format, 'text');
  assert.equal(run('--logging-format=json').config.logging.format, 'json');
});

test('flags without effect: named in ONE start-up line, only those given, config flags under --config left to their own warning', () => {
  const given = run('--profiling', '--v=2', '--boot-id-file=/x', '--log-flush-frequency=1s', '--kube-api-qps=9', '--vmodule=a=1');
  assert.deepEqual(given.errors, []);
  assert.deepEqual(given.flagsWithoutEffect, ['profiling', 'boot-id-file', 'log-flush-frequency', 'kube-api-qps', 'vmodule']);
  const lines = startupNotices({ mode: 'nftables' }, given.flagsWithoutEffect);
  assert.equal(lines.length, 1);
  assert.equal(lines[0], `${NO_EFFECT_NOTICE_PREFIX} --profiling, --boot-id-file, --log-flush-frequency, --kube-api-qps, --vmodule (docs/configuration.md#flags-without-effect says why)`);
  assert.deepEqual(run('--proxy-mode=nftables', '--v=4', '--masquerade-all').flagsWithoutEffect, [], 'flags with effect are not named');
  assert.deepEqual(startupNotices({ mode: 'nftables' }, []), [], 'nothing given, nothing said');
  const withConfig = withFile(V2, '--profiling', '--machine-id-file=/y');
  assert.deepEqual(withConfig.flagsWithoutEffect, ['machine-id-file'], '--profiling is already reported as ignored under --config');
  assert.ok(withConfig.warnings.some((w) => w.startsWith('--profiling is ignored because --config is given')));
});

test('each flag without effect has a reason, and --help says it', () => {
  const reasons = noEffectReasons();
  assert.ok(reasons.length >= 10);
  const help = run('--help').helpText ?? '';
  for (const r of reasons) {
    assert.ok(r.why.length > 20, r.flag);
    assert.ok(help.includes(`[No effect in kube-proxy-native: ${r.why}.]`), r.flag);
  }
});
