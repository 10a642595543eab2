// Our request layer on its own, over real HTTP and HTTPS: the credentials and TLS settings a kubeconfig
// gives, the API server's errors, the deadlines, and aborting at any stage.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { AbortedError, ApiConnection, ApiError, DeadlineError } from '../../src/k8s/api-request';
import { resolveDeadlines, watchSilenceLimitMs, DEFAULT_DEADLINES } from '../../src/k8s/deadlines';
import { loadKubeConfig } from '../../src/k8s/kubeconfig';
import { nativeCredentials } from '../../src/k8s/native-credentials';
import { resourceClients } from '../../src/k8s/resources';
import { openWatch } from '../../src/k8s/watch-stream';
import { makeTestCerts } from '../apiserver/certs';
import { TestApiServer } from '../apiserver/server';
import { service, serverPerTest, tlsServerPerSuite, waitFor } from './helpers';

// Generous: a loaded machine must not trip them. The tests of a deadline shorten just that one.
const RELAXED = { headersMs: 10_000, listIdleMs: 10_000, listBodyMs: 20_000, watchBookmarkIdleMs: 10_000, watchTimeoutMarginMs: 10_000 };
const SHORT = { ...RELAXED, headersMs: 300, listIdleMs: 300, listBodyMs: 2000 };
const t = serverPerTest();
const connect = (api: TestApiServer, deadlines = RELAXED): ApiConnection => new ApiConnection(loadKubeConfig({ kubeconfig: api.kubeconfig() }), deadlines);

/** A one-off HTTP server answering every request with `answer`, for answers the test API server never gives. */
async function rawServer(answer: (res: http.ServerResponse) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const srv = http.createServer((_req, res) => answer(res));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }) };
}

describe('deadlines', () => {
  it('fill in defaults, reject nonsense, and allow a watch its timeout until a bookmark shows bookmarks flow', () => {
    assert.deepEqual(resolveDeadlines(), DEFAULT_DEADLINES);
    assert.equal(resolveDeadlines({ headersMs: 5 }).headersMs, 5);
    assert.throws(() => resolveDeadlines({ listIdleMs: 0 }), /listIdleMs: must be a positive number/);
    assert.throws(() => resolveDeadlines({ headersMs: NaN }), /headersMs/);
    assert.equal(watchSilenceLimitMs(DEFAULT_DEADLINES, 300, false), 330_000);
    assert.equal(watchSilenceLimitMs(DEFAULT_DEADLINES, 300, true), 90_000);
  });
});

describe('ApiConnection', { timeout: 60_000 }, () => {
  it('sends the bearer token and gives the API server\'s status, reason and message on errors', async () => {
    const conn = connect(t.api);
    t.api.create('services', service('default', 'web'));
    const list = (await conn.getJson('/api/v1/services', { limit: 5 })) as { items: unknown[] };
    assert.equal(list.items.length, 1);
    assert.equal(t.api.requests.at(-1)?.authorization, 'Bearer test-token');
    assert.equal(t.api.requests.at(-1)?.query.limit, '5');

    t.api.failRequests(403, '/api/v1/nodes');
    const forbidden = await conn.getJson('/api/v1/nodes', {}).catch((e: unknown) => e);
    assert.ok(forbidden instanceof ApiError);
    assert.equal(forbidden.code, 403);
    assert.equal(forbidden.statusCode, 403);
    assert.equal(forbidden.reason, 'Forbidden');
    assert.match(forbidden.message, /^GET \/api\/v1\/nodes: HTTP 403 Forbidden: injected failure$/);

    t.api.notServed.add('servicecidrs');
    const missing = await conn.getJson('/apis/networking.k8s.io/v1/servicecidrs', {}).catch((e: unknown) => e);
    assert.ok(missing instanceof ApiError && missing.code === 404 && missing.reason === 'NotFound');

    const expired = await conn.getJson('/api/v1/services', { limit: 1, continue: Buffer.from('{"id":"x","offset":1}').toString('base64') }).catch((e: unknown) => e);
    assert.ok(expired instanceof ApiError && expired.code === 410 && expired.reason === 'Expired');
  });

  it('fails a connection refused with its code, and names what it was doing', async () => {
    const conn = connect(t.api);
    await t.api.stop();
    const err = (await conn.getJson('/api/v1/services', {}).catch((e: unknown) => e)) as Error & { code?: string };
    assert.equal(err.code, 'ECONNREFUSED');
    assert.match(err.message, /^GET \/api\/v1\/services: connect ECONNREFUSED/);
  });

  it('gives up waiting for headers, for body bytes, and for a trickled body, and closes the connection', async () => {
    const conn = connect(t.api, SHORT);
    const cases = [
      { fault: { mode: 'no-headers' as const }, error: /no response headers within 0.3s/ },
      { fault: { mode: 'silent' as const }, error: /nothing received for 0.3s while reading the answer/ },
      { fault: { mode: 'trickle' as const, bytes: 8, everyMs: 100 }, error: /the answer took longer than 2s/ },
    ];
    for (let i = 0; i < 20; i++) t.api.create('services', service('default', `svc-${i}`));
    for (const c of cases) {
      t.api.setFault('/api/v1/services', 'list', c.fault);
      const began = Date.now();
      const err = await conn.getJson('/api/v1/services', {}).catch((e: unknown) => e);
      assert.ok(err instanceof DeadlineError, `${c.fault.mode}: ${String(err)}`);
      assert.match(err.message, c.error);
      assert.ok(Date.now() - began < 5000);
      await waitFor(`${c.fault.mode} connection closed`, () => t.api.hungRequests === 0);
    }
    t.api.setFault('/api/v1/services', 'list', { mode: 'trickle', bytes: 256, everyMs: 20 });
    const slowButSteady = (await connect(t.api, { ...RELAXED, listIdleMs: 2000 }).getJson('/api/v1/services', {})) as { items: unknown[] };
    assert.equal(slowButSteady.items.length, 20, 'a body that keeps coming within the deadlines is read');
  });

  it('aborts a request before its headers and while its body arrives', async () => {
    const conn = connect(t.api);
    for (const mode of ['no-headers', 'silent'] as const) {
      t.api.setFault('/api/v1/services', 'list', { mode });
      const ac = new AbortController();
      const p = conn.getJson('/api/v1/services', {}, ac.signal).catch((e: unknown) => e);
      await waitFor('request hanging', () => t.api.hungRequests === 1);
      ac.abort();
      assert.ok((await p) instanceof AbortedError, mode);
      await waitFor('connection closed', () => t.api.hungRequests === 0);
    }
  });

  it('reads a watch stream, ends "aborted" when aborted before its headers, and rejects garbage lines', async () => {
    const conn = connect(t.api);
    t.api.setFault('/api/v1/nodes', 'watch', { mode: 'no-headers' });
    const hung = openWatch(conn, { path: '/api/v1/nodes', params: {}, timeoutSeconds: 30, onOpen: () => assert.fail('no headers were sent'), onEvent: () => undefined });
    await waitFor('watch hanging', () => t.api.hungRequests === 1);
    hung.abort();
    assert.equal(await hung.done, 'aborted');

    const raw = await rawServer((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n\nnot json\n');
    });
    try {
      const kc = loadKubeConfig({ master: raw.url });
      const events: string[] = [];
      const w = openWatch(new ApiConnection(kc, RELAXED), { path: '/api/v1/nodes', params: {}, timeoutSeconds: 30, onOpen: () => undefined, onEvent: (type) => events.push(type) });
      await assert.rejects(w.done, /watch \/api\/v1\/nodes: undecodable event: not json/);
      assert.deepEqual(events, ['ADDED']);
    } finally {
      await raw.close();
    }
  });

  it('rejects an answer that is not a list', async () => {
    const raw = await rawServer((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"kind":"Status","status":"Success"}');
    });
    try {
      const kc = loadKubeConfig({ master: raw.url });
      await assert.rejects(resourceClients(new ApiConnection(kc, RELAXED)).services.list({}), /GET \/api\/v1\/services: the answer is not a list \(kind "Status"\)/);
    } finally {
      await raw.close();
    }
  });

  it('fails clearly, without waiting, on a server address that is not a URL', async () => {
    const kc = nativeCredentials({ server: 'http://[not-an-address', skipTLSVerify: true }, {});
    const began = Date.now();
    await assert.rejects(new ApiConnection(kc, RELAXED).getJson('/api/v1/nodes', {}), /^Error: GET \/api\/v1\/nodes: server "http:\/\/\[not-an-address": Invalid URL/);
    assert.ok(Date.now() - began < RELAXED.headersMs, 'not by the headers deadline');
  });

  it('runs an exec credential plugin for its token', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-exec-'));
    const file = path.join(dir, 'kubeconfig');
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-exec' } });
    fs.writeFileSync(file, JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
      clusters: [{ name: 'c', cluster: { server: t.api.url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', `console.log(${JSON.stringify(credential)})`], interactiveMode: 'Never' } } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    }));
    await new ApiConnection(loadKubeConfig({ kubeconfig: file }), RELAXED).getJson('/api/v1/nodes', {});
    assert.equal(t.api.requests.at(-1)?.authorization, 'Bearer from-exec');
  });
});

describe('ApiConnection over TLS', { timeout: 60_000 }, () => {
  const tls = tlsServerPerSuite();

  it('verifies the server against the kubeconfig\'s CA and presents the client certificate', async () => {
    tls.api.create('nodes', { metadata: { name: 'n1' } });
    const kc = loadKubeConfig({ kubeconfig: tls.api.kubeconfig(undefined, { ca: tls.certs.ca, clientCert: tls.certs.clientCert, clientKey: tls.certs.clientKey }) });
    const list = (await new ApiConnection(kc, RELAXED).getJson('/api/v1/nodes', {})) as { items: unknown[] };
    assert.equal(list.items.length, 1);
    assert.ok(tls.api.url.startsWith('https://'));
  });

  it('refuses a server its CA did not sign, and is refused without a client certificate', async () => {
    const other = makeTestCerts();
    const wrongCa = loadKubeConfig({ kubeconfig: tls.api.kubeconfig(undefined, { ca: other.ca, clientCert: tls.certs.clientCert, clientKey: tls.certs.clientKey }) });
    await assert.rejects(new ApiConnection(wrongCa, RELAXED).getJson('/api/v1/nodes', {}), /GET \/api\/v1\/nodes: https:\/\/127\.0\.0\.1:\d+: the server's TLS certificate was not accepted \(self-signed certificate in certificate chain; SELF_SIGNED_CERT_IN_CHAIN\): check the kubeconfig's certificate-authority/);
    const noClientCert = loadKubeConfig({ kubeconfig: tls.api.kubeconfig(undefined, { ca: tls.certs.ca, token: 'x' }) });
    await assert.rejects(new ApiConnection(noClientCert, RELAXED).getJson('/api/v1/nodes', {}), /GET \/api\/v1\/nodes: .*certificate required/);
  });

  it('skips verifying the server with insecure-skip-tls-verify', async () => {
    // No CA in the kubeconfig: the server's certificate (signed by a CA the client does not know) is not checked.
    const kc = loadKubeConfig({ kubeconfig: tls.api.kubeconfig(undefined, { clientCert: tls.certs.clientCert, clientKey: tls.certs.clientKey }) });
    const opts: https.RequestOptions = {};
    await kc.applyTo(opts);
    assert.equal(opts.rejectUnauthorized, false);
    const list = (await new ApiConnection(kc, RELAXED).getJson('/api/v1/nodes', {})) as { items: unknown[] };
    assert.ok(Array.isArray(list.items));
  });
});
