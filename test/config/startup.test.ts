// The IPVS deprecation: one warning at start-up in ipvs mode, none otherwise; --help says it too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandLine, startupNotices, startupWarnings, effectiveMode } from '../../src/config';
import { memIo, V2, withFile } from './helpers';

const DEPRECATION = 'IPVS proxy mode is deprecated and will be removed in a future release; nftables mode is its replacement (--proxy-mode=nftables or mode: nftables)';

test('ipvs mode: exactly one deprecation warning naming nftables as the replacement', () => {
  assert.deepEqual(startupWarnings(parseCommandLine(['--proxy-mode=ipvs'], memIo({})).config), [DEPRECATION]);
  assert.deepEqual(startupWarnings(withFile(V2 + 'mode: ipvs\n').config), [DEPRECATION]);
});

test('other modes: no start-up warning', () => {
  for (const argv of [[], ['--proxy-mode=nftables'], ['--proxy-mode=']]) {
    assert.deepEqual(startupWarnings(parseCommandLine(argv, memIo({})).config), [], argv.join(' '));
  }
});

test('a blank mode is said once at start-up: nftables chosen, iptables (upstream\'s default) not provided', () => {
  const notices = startupNotices(parseCommandLine([], memIo({})).config);
  assert.deepEqual(notices, ['mode is unset: running the nftables mode (upstream\'s default, iptables, is not provided by kube-proxy-native; set mode: nftables to say so)']);
  assert.deepEqual(startupNotices(withFile(V2 + 'mode: ""\n').config), notices);
  for (const argv of [['--proxy-mode=nftables'], ['--proxy-mode=ipvs']]) assert.deepEqual(startupNotices(parseCommandLine(argv, memIo({})).config), [], argv.join(' '));
});

test('a blank mode runs nftables', () => {
  assert.equal(effectiveMode({ mode: '' }), 'nftables');
  assert.equal(effectiveMode({ mode: 'ipvs' }), 'ipvs');
});

test('--help lists the flags and the IPVS deprecation', () => {
  const r = parseCommandLine(['--help'], memIo({}));
  assert.equal(r.action, 'help');
  const h = r.helpText ?? '';
  assert.ok(h.includes(`NOTE: ${DEPRECATION}.`));
  for (const f of ['--config', '--proxy-mode', '--ipvs-scheduler', '--iptables-masquerade-bit', '--conntrack-min', '-v, --v', '--cleanup', '--write-config-to']) {
    assert.ok(h.includes(f), f);
  }
  assert.match(h, /--proxy-mode string\n.*'ipvs' \(DEPRECATED: nftables is its replacement\)/);
  // Mode-owned flags, like the core's, say that --config makes them ignored.
  assert.match(h, /--ipvs-scheduler string\n.*This parameter is ignored if a config file is specified by --config\./);
  assert.match(h, /--config string\n\s+The path to the configuration file[^\n]*\n/);
  assert.doesNotMatch(h, /--config string\n[^\n]*ignored/);
});

test('--help shows the help even when other flags are wrong', () => {
  const r = parseCommandLine(['--bogus', '-h'], memIo({}));
  assert.equal(r.action, 'help');
  assert.deepEqual(r.errors, []);
});
