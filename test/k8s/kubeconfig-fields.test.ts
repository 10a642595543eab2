// Our kubeconfig loader, field by field: what each cluster and user field puts into a request, files
// relative to the kubeconfig, base64 data, token files read again as they rotate; and over real TLS
// against the test API server (CA and client certificate files, a rotated token).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { ApiConnection } from '../../src/k8s/api-request';
import { loadKubeConfig } from '../../src/k8s/kubeconfig';
import { tlsServerPerSuite } from './helpers';
import { applied, b64, fakeClock, tempDir, writeKc } from './kubeconfig-helpers';

const RELAXED = { headersMs: 10_000, listIdleMs: 10_000, listBodyMs: 20_000, watchBookmarkIdleMs: 10_000, watchTimeoutMarginMs: 10_000 };

describe('kubeconfig clusters', () => {
  it('give the server without its trailing slash, and verification, server name and CA as written', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'pki'));
    fs.writeFileSync(path.join(dir, 'pki', 'ca.crt'), 'CA FROM FILE');
    const kc = loadKubeConfig({ kubeconfig: writeKc(dir, { server: 'https://10.0.0.1:6443/', 'certificate-authority': 'pki/ca.crt', 'tls-server-name': 'api.internal' }, { token: 't' }) });
    assert.equal(kc.server, 'https://10.0.0.1:6443');
    const o = await applied(kc);
    assert.equal(o.ca?.toString(), 'CA FROM FILE', 'a relative path is read from the kubeconfig\'s directory');
    assert.equal(o.servername, 'api.internal');
    assert.equal(o.rejectUnauthorized, undefined, 'verified unless told otherwise');
    assert.equal(o.agent, false, 'a one-off agent: no connection pooled between requests');
    assert.equal(o.headers.Accept, 'application/json', 'the caller\'s headers are kept');

    const inline = await applied(loadKubeConfig({ kubeconfig: writeKc(dir, { server: 'https://a', 'certificate-authority-data': b64('CA INLINE'), 'insecure-skip-tls-verify': true }, { token: 't' }) }));
    assert.equal(inline.ca?.toString(), 'CA INLINE');
    assert.equal(inline.rejectUnauthorized, false);

    const both = await applied(loadKubeConfig({ kubeconfig: writeKc(dir, { server: 'https://a', 'certificate-authority': path.join(dir, 'pki', 'ca.crt'), 'certificate-authority-data': b64('CA INLINE') }, { token: 't' }) }));
    assert.equal(both.ca?.toString(), 'CA FROM FILE', 'the file wins over inline data, as with client-node');
  });

  it('re-read their CA file for each request', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'ca.crt'), 'ONE');
    const kc = loadKubeConfig({ kubeconfig: writeKc(dir, { server: 'https://a', 'certificate-authority': 'ca.crt' }, null) });
    assert.equal((await applied(kc)).ca?.toString(), 'ONE');
    fs.writeFileSync(path.join(dir, 'ca.crt'), 'TWO');
    assert.equal((await applied(kc)).ca?.toString(), 'TWO');
    fs.rmSync(path.join(dir, 'ca.crt'));
    await assert.rejects(kc.applyTo({}), /ENOENT.*ca\.crt/);
  });
});

describe('kubeconfig users with a plugin (through client-node)', () => {
  it('still have --master override the server, and their token set by the plugin', async () => {
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-exec' } });
    const exec = { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', `console.log(${JSON.stringify(credential)})`], interactiveMode: 'Never' };
    const file = writeKc(tempDir(), { server: 'https://10.0.0.1:6443' }, { exec });
    assert.equal(loadKubeConfig({ kubeconfig: file }).server, 'https://10.0.0.1:6443');
    const kc = loadKubeConfig({ kubeconfig: file, master: 'http://127.0.0.1:8080/' });
    assert.equal(kc.server, 'http://127.0.0.1:8080');
    assert.equal((await applied(kc)).headers.Authorization, 'Bearer from-exec');
  });
});

describe('kubeconfig users', () => {
  const server = { server: 'https://10.0.0.1:6443' };

  it('authenticate with a token, a token file (tokenFile or token-file), basic auth, and impersonate with as', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'sa-token'), 'from-file\n');
    const auth = async (user: Record<string, unknown>): Promise<Record<string, unknown>> => (await applied(loadKubeConfig({ kubeconfig: writeKc(dir, server, user) }))).headers;
    assert.equal((await auth({ token: 'inline' })).Authorization, 'Bearer inline');
    assert.equal((await auth({ tokenFile: 'sa-token' })).Authorization, 'Bearer from-file', 'relative to the kubeconfig, without the newline');
    assert.equal((await auth({ 'token-file': path.join(dir, 'sa-token') })).Authorization, 'Bearer from-file');
    assert.equal((await auth({ token: 'inline', tokenFile: 'sa-token' })).Authorization, 'Bearer inline', 'an inline token wins, as before');
    assert.equal((await auth({ username: 'admin', password: 'secret' })).Authorization, `Basic ${b64('admin:secret')}`);
    assert.equal((await auth({ token: 'inline', username: 'admin', password: 'secret' })).Authorization, 'Bearer inline');
    const imp = await auth({ token: 'inline', as: 'system:serviceaccount:kube-system:kube-proxy' });
    assert.equal(imp['Impersonate-User'], 'system:serviceaccount:kube-system:kube-proxy');
    assert.equal((await auth({})).Authorization, undefined);
    assert.equal((await applied(loadKubeConfig({ kubeconfig: writeKc(dir, server, null) }))).headers.Authorization, undefined, 'a context without a user is anonymous');
  });

  it('present a client certificate and key, from files (relative) or inline data', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'client.crt'), 'CERT');
    fs.writeFileSync(path.join(dir, 'client.key'), 'KEY');
    const files = await applied(loadKubeConfig({ kubeconfig: writeKc(dir, server, { 'client-certificate': 'client.crt', 'client-key': './client.key' }) }));
    assert.deepEqual([files.cert?.toString(), files.key?.toString()], ['CERT', 'KEY']);
    const data = await applied(loadKubeConfig({ kubeconfig: writeKc(dir, server, { 'client-certificate-data': b64('CERT2'), 'client-key-data': b64('KEY2') }) }));
    assert.deepEqual([data.cert?.toString(), data.key?.toString()], ['CERT2', 'KEY2']);
    assert.equal(data.headers.Authorization, undefined);
  });

  it('read a token file again once its copy is a minute old, keeping the last token if the file is briefly gone', async () => {
    const dir = tempDir();
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, 'one');
    const clock = fakeClock();
    const kc = loadKubeConfig({ kubeconfig: writeKc(dir, server, { tokenFile: 'token' }) }, { clock });
    const bearer = async (): Promise<unknown> => (await applied(kc)).headers.Authorization;
    assert.equal(await bearer(), 'Bearer one');
    fs.writeFileSync(tokenFile, 'two');
    clock.advance(59_000);
    assert.equal(await bearer(), 'Bearer one', 'not read again within the minute');
    clock.advance(1_000);
    assert.equal(await bearer(), 'Bearer two');
    fs.rmSync(tokenFile);
    clock.advance(60_000);
    assert.equal(await bearer(), 'Bearer two', 'a failed re-read keeps the token (as client-go)');
    fs.writeFileSync(tokenFile, 'three');
    assert.equal(await bearer(), 'Bearer three', 'and the next request tries again');
  });
});

describe('kubeconfig over TLS, against the test API server', { timeout: 60_000 }, () => {
  const tls = tlsServerPerSuite();
  before(() => {
    tls.api.create('nodes', { metadata: { name: 'n1' } });
  });

  it('verifies the server with a CA file and presents client certificate files, all relative to the kubeconfig', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'pki'));
    fs.writeFileSync(path.join(dir, 'pki', 'ca.crt'), tls.certs.ca);
    fs.writeFileSync(path.join(dir, 'pki', 'client.crt'), tls.certs.clientCert);
    fs.writeFileSync(path.join(dir, 'pki', 'client.key'), tls.certs.clientKey);
    const file = writeKc(dir, { server: tls.api.url, 'certificate-authority': 'pki/ca.crt' }, { 'client-certificate': 'pki/client.crt', 'client-key': 'pki/client.key' });
    const list = (await new ApiConnection(loadKubeConfig({ kubeconfig: file }), RELAXED).getJson('/api/v1/nodes', {})) as { items: unknown[] };
    assert.equal(list.items.length, 1);
  });

  it('refuses a server whose name is not the tls-server-name', async () => {
    const dir = tempDir();
    const file = writeKc(dir, { server: tls.api.url, 'certificate-authority-data': b64(tls.certs.ca), 'tls-server-name': 'elsewhere.example' }, { 'client-certificate-data': b64(tls.certs.clientCert), 'client-key-data': b64(tls.certs.clientKey) });
    await assert.rejects(new ApiConnection(loadKubeConfig({ kubeconfig: file }), RELAXED).getJson('/api/v1/nodes', {}), /Hostname\/IP does not match certificate's altnames: Host: elsewhere\.example/);
  });

  it('goes through the proxy-url (client-node\'s agents), still reading the tokenFile', async () => {
    // A CONNECT proxy; its tunnels leave the HTTP server's hands, so they are closed by hand.
    const connects: string[] = [];
    const tunnels: net.Socket[] = [];
    const proxy = http.createServer();
    proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      connects.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client).pipe(upstream);
      });
      tunnels.push(client, upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    try {
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, 'token'), 'via-proxy');
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
      const file = writeKc(dir, { server: tls.api.url, 'certificate-authority-data': b64(tls.certs.ca), 'proxy-url': proxyUrl }, { tokenFile: 'token', 'client-certificate-data': b64(tls.certs.clientCert), 'client-key-data': b64(tls.certs.clientKey) });
      await new ApiConnection(loadKubeConfig({ kubeconfig: file }), RELAXED).getJson('/api/v1/nodes', {});
      assert.deepEqual(connects, [new URL(tls.api.url).host]);
      assert.equal(tls.api.requests.at(-1)?.authorization, 'Bearer via-proxy');
    } finally {
      for (const t of tunnels) t.destroy();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  it('sends the rotated token once the token file is read again', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'token'), 'before-rotation');
    const clock = fakeClock();
    const file = writeKc(dir, { server: tls.api.url, 'certificate-authority-data': b64(tls.certs.ca) }, { tokenFile: 'token', 'client-certificate-data': b64(tls.certs.clientCert), 'client-key-data': b64(tls.certs.clientKey) });
    const conn = new ApiConnection(loadKubeConfig({ kubeconfig: file }, { clock }), RELAXED);
    await conn.getJson('/api/v1/nodes', {});
    assert.equal(tls.api.requests.at(-1)?.authorization, 'Bearer before-rotation');
    fs.writeFileSync(path.join(dir, 'token'), 'after-rotation');
    clock.advance(60_000);
    await conn.getJson('/api/v1/nodes', {});
    assert.equal(tls.api.requests.at(-1)?.authorization, 'Bearer after-rotation');
  });
});
