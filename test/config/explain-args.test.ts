// `kube-proxy-native explain NAMESPACE/SERVICE [--port P] [-o text|json] [flags]`: its own words
// taken off, the rest parsed as the proxy's flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandLine } from '../../src/config';
import { parseExplainArgs } from '../../src/config/explain-args';

test('the Service, --port and -o in any order, the proxy\'s flags (with their values) passed on', () => {
  const a = parseExplainArgs(['--kubeconfig', '/k', 'kube-system/kube-dns', '-o', 'json', '--port=dns', '-v', '4', '--masquerade-all']);
  assert.deepEqual(a.errors, []);
  assert.deepEqual(a.request, { namespace: 'kube-system', name: 'kube-dns', port: 'dns', output: 'json' });
  assert.deepEqual(a.rest, ['--kubeconfig', '/k', '-v', '4', '--masquerade-all']);
  assert.deepEqual(parseExplainArgs(['default/web', '--port', '443']).request, { namespace: 'default', name: 'web', port: '443', output: 'text' });
});

test('refuses what is not NAMESPACE/SERVICE, a second Service, a bad -o or --port, a missing value', () => {
  assert.match(parseExplainArgs([]).errors[0], /explain: which Service\? \(usage: kube-proxy-native explain NAMESPACE\/SERVICE/);
  assert.match(parseExplainArgs(['web']).errors[0], /"web" is not NAMESPACE\/SERVICE/);
  assert.match(parseExplainArgs(['a/b/c']).errors[0], /"a\/b\/c" is not NAMESPACE\/SERVICE/);
  assert.match(parseExplainArgs(['Default/web']).errors[0], /is not NAMESPACE\/SERVICE/);
  assert.match(parseExplainArgs(['a/b', 'c/d']).errors[0], /one Service, got a\/b c\/d/);
  assert.deepEqual(parseExplainArgs(['a/b', '-o', 'yaml']).errors, ['explain: -o "yaml": text or json']);
  assert.deepEqual(parseExplainArgs(['a/b', '--port', '70000']).errors, ['explain: --port "70000": a ServicePort\'s name or number']);
  assert.deepEqual(parseExplainArgs(['a/b', '--port']).errors, ['explain: --port needs a value']);
});

test('the command line: action explain with the proxy\'s config; commands that change something refused beside it', () => {
  const cl = parseCommandLine(['explain', 'default/web', '--proxy-mode=nftables', '--hostname-override=node-a', '-o', 'json']);
  assert.deepEqual(cl.errors, []);
  assert.equal(cl.action, 'explain');
  assert.deepEqual(cl.explain, { namespace: 'default', name: 'web', output: 'json' });
  assert.equal(cl.config.hostnameOverride, 'node-a');
  assert.deepEqual(parseCommandLine(['explain', 'default/web', '--cleanup']).errors, ['explain: cannot be combined with --cleanup']);
  assert.deepEqual(parseCommandLine(['explain', 'default/web', '--dry-run']).errors, ['explain: cannot be combined with --dry-run']);
  assert.equal(parseCommandLine(['explain', '--help']).action, 'help');
  assert.match(parseCommandLine(['--help']).helpText ?? '', /kube-proxy-native explain NAMESPACE\/SERVICE/);
});
