// In-cluster credentials: the server from KUBERNETES_SERVICE_HOST/PORT, the mounted CA and the
// mounted token, read again as the kubelet rotates it; over real TLS against the test API server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiConnection } from '../../src/k8s/api-request';
import { loadKubeConfig } from '../../src/k8s/kubeconfig';
import { makeTestCerts, type TestCerts } from '../apiserver/certs';
import { TestApiServer } from '../apiserver/server';
import { applied, fakeClock, tempDir, writeKc } from './kubeconfig-helpers';

const RELAXED = { headersMs: 10_000, listIdleMs: 10_000, listBodyMs: 20_000, watchBookmarkIdleMs: 10_000, watchTimeoutMarginMs: 10_000 };

/** A mounted service account: ca.crt and token. */
function serviceAccount(ca: string, token: string): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'ca.crt'), ca);
  fs.writeFileSync(path.join(dir, 'token'), token);
  return dir;
}

describe('in-cluster', () => {
  it('builds the server from the environment, an IPv6 host in brackets, and reads the mounted CA and token', async () => {
    const sa = serviceAccount('MOUNTED CA', 'sa-token\n');
    const kc = loadKubeConfig({}, { env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, serviceAccountDir: sa });
    assert.equal(kc.server, 'https://10.96.0.1:443');
    const o = await applied(kc);
    assert.equal(o.ca?.toString(), 'MOUNTED CA');
    assert.equal(o.headers.Authorization, 'Bearer sa-token');
    assert.equal(o.rejectUnauthorized, undefined);
    const v6 = loadKubeConfig({}, { env: { KUBERNETES_SERVICE_HOST: 'fd00:10:96::1', KUBERNETES_SERVICE_PORT: '443' }, serviceAccountDir: sa });
    assert.equal(v6.server, 'https://[fd00:10:96::1]:443');
    const port8080 = loadKubeConfig({}, { env: { KUBERNETES_SERVICE_HOST: 'api', KUBERNETES_SERVICE_PORT: '8080' }, serviceAccountDir: sa });
    assert.equal(port8080.server, 'https://api:8080', 'always https, as client-go');
  });

  it('is used only with the host set and a token mounted; --master overrides its server; a kubeconfig wins over it', async () => {
    const sa = serviceAccount('CA', 'sa-token');
    const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
    assert.throws(() => loadKubeConfig({}, { env: {}, serviceAccountDir: sa }), /no API server configured/);
    assert.throws(() => loadKubeConfig({}, { env, serviceAccountDir: tempDir() }), /no API server configured/);
    const mastered = loadKubeConfig({ master: 'https://192.0.2.1:6443' }, { env, serviceAccountDir: sa });
    assert.equal(mastered.server, 'https://192.0.2.1:6443');
    assert.equal((await applied(mastered)).headers.Authorization, 'Bearer sa-token', 'the service account still authenticates');
    const file = writeKc(tempDir(), { server: 'https://10.0.0.9:6443' }, { token: 'kc' });
    assert.equal(loadKubeConfig({ kubeconfig: file }, { env, serviceAccountDir: sa }).server, 'https://10.0.0.9:6443');
  });

  it('says what is missing', () => {
    const sa = serviceAccount('CA', 'sa-token');
    assert.throws(() => loadKubeConfig({}, { env: { KUBERNETES_SERVICE_HOST: '10.96.0.1' }, serviceAccountDir: sa }),
      /^Error: in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set$/);
    assert.throws(() => loadKubeConfig({}, { env: { KUBERNETES_SERVICE_HOST: 'a b', KUBERNETES_SERVICE_PORT: '443' }, serviceAccountDir: sa }), /^Error: in-cluster: KUBERNETES_SERVICE_HOST "a b" and KUBERNETES_SERVICE_PORT "443" do not make a URL$/);
    fs.writeFileSync(path.join(sa, 'token'), '');
    assert.throws(() => loadKubeConfig({}, { env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, serviceAccountDir: sa }), /^Error: in-cluster: token file .*token is empty$/);
  });
});

describe('in-cluster against the test API server', { timeout: 60_000 }, () => {
  let certs: TestCerts;
  let api: TestApiServer;
  before(async () => {
    certs = makeTestCerts();
    api = new TestApiServer({ tls: { key: certs.serverKey, cert: certs.serverCert } });
    await api.start();
  });
  after(() => api.stop());

  it('verifies the server with the mounted CA and follows the token as it rotates', async () => {
    const sa = serviceAccount(certs.ca, 'token-1');
    const clock = fakeClock();
    const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: new URL(api.url).port };
    const conn = new ApiConnection(loadKubeConfig({}, { env, serviceAccountDir: sa, clock }), RELAXED);
    await conn.getJson('/api/v1/nodes', {});
    assert.equal(api.requests.at(-1)?.authorization, 'Bearer token-1');
    fs.writeFileSync(path.join(sa, 'token'), 'token-2');
    clock.advance(60_000);
    await conn.getJson('/api/v1/nodes', {});
    assert.equal(api.requests.at(-1)?.authorization, 'Bearer token-2');
    fs.writeFileSync(path.join(sa, 'ca.crt'), makeTestCerts().ca);
    await assert.rejects(conn.getJson('/api/v1/nodes', {}), /GET \/api\/v1\/nodes: https:\/\/127\.0\.0\.1:\d+: the server's TLS certificate was not accepted \(unable to verify the first certificate/, 'the CA is read again for each request');
  });
});
