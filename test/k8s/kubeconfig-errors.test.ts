// What the kubeconfig loader refuses, and how it says so: each error names the flag, the file and
// the field at fault.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { loadKubeConfig } from '../../src/k8s/kubeconfig';
import { tempDir, writeKc } from './kubeconfig-helpers';

describe('kubeconfig errors', () => {
  const dir = tempDir();
  const raw = (name: string, text: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const load = (file: string) => () => loadKubeConfig({ kubeconfig: file });
  const server = { server: 'https://10.0.0.1:6443' };

  it('name a file that is missing, unreadable as YAML, or not a map', () => {
    assert.throws(load(path.join(dir, 'missing')), /^Error: --kubeconfig: file .*missing does not exist$/);
    const bad = raw('bad', 'clusters: [\n');
    assert.throws(load(bad), (e: Error) => e.message.startsWith(`--kubeconfig: ${bad} is not valid YAML: `) && /Flow sequence .* at line 2, column 1/.test(e.message));
    assert.throws(load(raw('str', 'just a string\n')), /--kubeconfig: .*str is not a kubeconfig: its top level is a string, not a map/);
    assert.throws(load(raw('list-clusters', 'clusters: {a: 1}\n')), /--kubeconfig: .*list-clusters: clusters is a map, not a list/);
  });

  it('name the entry that lacks what client-node requires of every entry', () => {
    assert.throws(load(raw('no-server', stringify({ clusters: [{ name: 'c', cluster: {} }] }))), /--kubeconfig: .*no-server: clusters\[0\]\.cluster\.server is missing/);
    assert.throws(load(raw('no-name', stringify({ users: [{ user: {} }] }))), /--kubeconfig: .*no-name: users\[0\]\.name is missing/);
    assert.throws(load(raw('no-ctx-cluster', stringify({ contexts: [{ name: 'x', context: { user: 'u' } }] }))), /contexts\[0\]\.context\.cluster is missing/);
  });

  it('say why there is no current cluster', () => {
    const base = { clusters: [{ name: 'c', cluster: server }], contexts: [{ name: 'x', context: { cluster: 'c' } }] };
    assert.throws(load(raw('empty', '')), /--kubeconfig: .*empty has no current cluster \(no current-context\)/);
    assert.throws(load(raw('no-current', stringify(base))), /has no current cluster \(no current-context\)/);
    assert.throws(load(raw('wrong-current', stringify({ ...base, 'current-context': 'y' }))), /has no current cluster \(current-context "y" is not among its contexts\)/);
    assert.throws(load(raw('wrong-cluster', stringify({ ...base, contexts: [{ name: 'x', context: { cluster: 'd' } }], 'current-context': 'x' }))),
      /has no current cluster \(context "x" names cluster "d", which is not among its clusters\)/);
    assert.throws(load(raw('wrong-user', stringify({ ...base, contexts: [{ name: 'x', context: { cluster: 'c', user: 'v' } }], 'current-context': 'x' }))),
      /--kubeconfig: .*wrong-user: context "x" names user "v", which is not among its users/);
  });

  it('name the field of the wrong type, a missing file it names, data that is not base64, half a client certificate', () => {
    const kc = (user: Record<string, unknown>, cluster: Record<string, unknown> = server) => load(writeKc(dir, cluster, user));
    assert.throws(kc({ token: 42 }), /--kubeconfig: .*kubeconfig: user "u": token is a number, not a string/);
    assert.throws(kc({}, { ...server, 'insecure-skip-tls-verify': 'yes' }), /cluster "c": insecure-skip-tls-verify is a string, not true or false/);
    assert.throws(kc({ tokenFile: 'nope' }), new RegExp(`user "u": tokenFile ${dir}/nope does not exist`));
    assert.throws(kc({ 'client-key': 'nope.key', 'client-certificate-data': 'Q0VSVA==' }), new RegExp(`user "u": client-key ${dir}/nope.key does not exist`));
    assert.throws(kc({}, { ...server, 'certificate-authority': '/nope/ca.crt' }), /cluster "c": certificate-authority \/nope\/ca\.crt does not exist/);
    assert.throws(kc({ 'client-certificate-data': 'not base64!', 'client-key-data': 'S0VZ' }), /user "u": client-certificate-data is not base64/);
    assert.throws(kc({ 'client-certificate-data': 'Q0VSVA==' }), /user "u": client-certificate without client-key/);
    fs.writeFileSync(path.join(dir, 'empty-token'), '\n');
    assert.throws(kc({ tokenFile: 'empty-token' }), new RegExp(`--kubeconfig: ${dir}/kubeconfig: token file ${dir}/empty-token is empty`));
  });

  it('refuse the placeholder server, unless --master replaces it', async () => {
    const file = writeKc(dir, { server: 'https://API_SERVER_ADDRESS:6443' }, { token: 't' });
    assert.throws(load(file), /still has the placeholder server https:\/\/API_SERVER_ADDRESS:6443/);
    assert.equal(loadKubeConfig({ kubeconfig: file, master: 'https://10.1.1.1:6443/' }).server, 'https://10.1.1.1:6443');
  });

  it('name --master when it is not an http(s) URL, and say when there is no API server at all', () => {
    assert.throws(() => loadKubeConfig({ master: 'not a url' }), /^Error: --master: "not a url" is not a URL$/);
    assert.throws(() => loadKubeConfig({ master: 'ftp://a' }), /^Error: --master: "ftp:\/\/a" is not an http:\/\/ or https:\/\/ URL$/);
    assert.throws(() => loadKubeConfig({}, { env: {}, serviceAccountDir: '/nonexistent' }),
      /^Error: no API server configured: give --kubeconfig or --master, or run in a cluster$/);
  });
});
