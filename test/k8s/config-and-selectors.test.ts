// Pure pieces of src/k8s: selector strings, backoff, and kubeconfig loading with its errors.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { backoffDelay, DEFAULT_BACKOFF } from '../../src/k8s/backoff';
import { loadKubeConfig } from '../../src/k8s/kubeconfig';
import { excludeNamespacesSelector, nodeFieldSelector, SERVICE_LABEL_SELECTOR } from '../../src/k8s/selectors';

describe('selectors', { timeout: 60_000 }, () => {
  it('match upstream kube-proxy', () => {
    assert.equal(SERVICE_LABEL_SELECTOR, '!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless');
    assert.equal(nodeFieldSelector('node-a'), 'metadata.name=node-a');
    assert.throws(() => nodeFieldSelector(''), /nodeName: must not be empty/);
  });

  it('exclude namespaces in a stable order', () => {
    assert.equal(excludeNamespacesSelector([]), undefined);
    assert.equal(excludeNamespacesSelector(['b', 'a']), 'metadata.namespace!=a,metadata.namespace!=b');
  });
});

describe('backoff', { timeout: 60_000 }, () => {
  it('doubles from the initial delay up to the cap, with bounded jitter', () => {
    const o = { ...DEFAULT_BACKOFF, jitter: 0 };
    assert.deepEqual([1, 2, 3, 4].map((n) => backoffDelay(o, n)), [800, 1600, 3200, 6400]);
    assert.equal(backoffDelay(o, 50), 30_000);
    assert.equal(backoffDelay(DEFAULT_BACKOFF, 1, () => 0.5), 1200);
    assert.equal(backoffDelay(DEFAULT_BACKOFF, 50, () => 1), 60_000);
  });
});

describe('loadKubeConfig', { timeout: 60_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-kc-'));
  const file = path.join(dir, 'config');
  fs.writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://10.0.0.1:6443' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );

  it('reads --kubeconfig, and --master overrides its server', async () => {
    assert.equal(loadKubeConfig({ kubeconfig: file }).server, 'https://10.0.0.1:6443');
    const kc = loadKubeConfig({ kubeconfig: file, master: 'https://api.example:443' });
    assert.equal(kc.server, 'https://api.example');
    const opts: { headers?: http.OutgoingHttpHeaders } = {};
    await kc.applyTo(opts);
    assert.equal(opts.headers?.Authorization, 'Bearer t', 'credentials still come from the kubeconfig');
  });

  it('accepts --master alone, allowing plain http', async () => {
    const kc = loadKubeConfig({ master: 'http://127.0.0.1:8080' });
    assert.equal(kc.server, 'http://127.0.0.1:8080');
    const opts: { headers?: http.OutgoingHttpHeaders } = {};
    await kc.applyTo(opts);
    assert.equal(opts.headers?.Authorization, undefined, 'no credentials');
  });

  it('names the flag in its errors', () => {
    assert.throws(() => loadKubeConfig({ kubeconfig: path.join(dir, 'missing') }), /--kubeconfig: file .* does not exist/);
    assert.throws(() => loadKubeConfig({ master: 'not a url' }), /--master: "not a url" is not a URL/);
    const saved = process.env.KUBERNETES_SERVICE_HOST;
    delete process.env.KUBERNETES_SERVICE_HOST;
    try {
      assert.throws(() => loadKubeConfig({}), /give --kubeconfig or --master/);
    } finally {
      if (saved !== undefined) process.env.KUBERNETES_SERVICE_HOST = saved;
    }
  });
});
