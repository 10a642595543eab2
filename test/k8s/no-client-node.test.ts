// The running proxy does not load @kubernetes/client-node (63 MiB of RSS, docs/memory.md) for the
// common kubeconfigs: a child process loads the proxy's entry module, a kubeconfig, and lists from the
// test API server; the credentials arrive and no module of client-node was requested. A user with an
// exec plugin still works, through client-node loaded at that moment.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { makeTestCerts, type TestCerts } from '../apiserver/certs';
import { TestApiServer } from '../apiserver/server';
import { b64, tempDir, writeKc } from './kubeconfig-helpers';

const CHILD = path.join(__dirname, 'load-probe-child.js');

interface Probe { requested: string[]; cached: string[]; services: number; nodes: number }

async function probe(args: unknown): Promise<Probe> {
  // Asynchronous: the test API server answers the child from this process's event loop.
  const { stdout } = await promisify(execFile)(process.execPath, [CHILD, JSON.stringify(args)], { timeout: 30_000 });
  return JSON.parse(stdout) as Probe;
}

function fill(api: TestApiServer): void {
  api.create('nodes', { metadata: { name: 'node-a' } });
  api.create('services', { metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.0.0.10', ports: [{ port: 80 }] } });
}

describe('the proxy\'s run-time path without client-node', { timeout: 120_000 }, () => {
  let certs: TestCerts;
  let plain: TestApiServer;
  let mtls: TestApiServer;
  let tls: TestApiServer;
  before(async () => {
    certs = makeTestCerts();
    plain = new TestApiServer();
    mtls = new TestApiServer({ tls: { key: certs.serverKey, cert: certs.serverCert, clientCa: certs.ca } });
    tls = new TestApiServer({ tls: { key: certs.serverKey, cert: certs.serverCert } });
    for (const api of [plain, mtls, tls]) {
      await api.start();
      fill(api);
    }
  });
  after(async () => {
    for (const api of [plain, mtls, tls]) await api.stop();
  });

  const assertNoClientNode = (p: Probe): void => {
    assert.deepEqual(p.requested, [], 'no require of @kubernetes/client-node');
    assert.deepEqual(p.cached, []);
    assert.deepEqual([p.services, p.nodes], [1, 1], 'listed and decoded');
  };

  it('with a token kubeconfig', async () => {
    assertNoClientNode(await probe({ flags: { kubeconfig: writeKc(tempDir(), { server: plain.url }, { token: 'inline-token' }) } }));
    assert.equal(plain.requests.at(-1)?.authorization, 'Bearer inline-token');
  });

  it('with a tokenFile kubeconfig', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'token'), 'file-token\n');
    assertNoClientNode(await probe({ flags: { kubeconfig: writeKc(dir, { server: plain.url }, { tokenFile: 'token' }) } }));
    assert.equal(plain.requests.at(-1)?.authorization, 'Bearer file-token');
  });

  it('with a client-certificate kubeconfig, verifying the server', async () => {
    const user = { 'client-certificate-data': b64(certs.clientCert), 'client-key-data': b64(certs.clientKey) };
    assertNoClientNode(await probe({ flags: { kubeconfig: writeKc(tempDir(), { server: mtls.url, 'certificate-authority-data': b64(certs.ca) }, user) } }));
    assert.equal(mtls.requests.length, 2);
  });

  it('in a cluster, with the mounted service account', async () => {
    const sa = tempDir();
    fs.writeFileSync(path.join(sa, 'ca.crt'), certs.ca);
    fs.writeFileSync(path.join(sa, 'token'), 'sa-token');
    const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: new URL(tls.url).port };
    assertNoClientNode(await probe({ flags: {}, options: { env, serviceAccountDir: sa } }));
    assert.equal(tls.requests.at(-1)?.authorization, 'Bearer sa-token');
  });

  it('but an exec user loads client-node then, and its plugin\'s token is sent', async () => {
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-exec' } });
    const exec = { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', `console.log(${JSON.stringify(credential)})`], interactiveMode: 'Never' };
    const p = await probe({ flags: { kubeconfig: writeKc(tempDir(), { server: plain.url, 'insecure-skip-tls-verify': true }, { exec }) } });
    assert.deepEqual(p.requested, ['@kubernetes/client-node']);
    assert.ok(p.cached.length > 0, 'and require.cache shows it: the evidence the other cases rely on sees client-node when loaded');
    assert.deepEqual([p.services, p.nodes], [1, 1]);
    assert.equal(plain.requests.at(-1)?.authorization, 'Bearer from-exec');
  });
});
