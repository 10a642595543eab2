// The test API server's own protocol, checked with plain HTTP (so the watcher tests rest on something verified).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors';
import { TestApiServer } from './server';

/** Reads watch events until `count` arrived or the stream ended. */
function watchEvents(url: string, count: number): Promise<Array<{ type: string; object: { metadata?: { name?: string; resourceVersion?: string }; code?: number } }>> {
  return new Promise((resolve, reject) => {
    const events: Array<{ type: string; object: { metadata?: { name?: string; resourceVersion?: string }; code?: number } }> = [];
    // Never hang the suite: give up after 10 s with what arrived (the assertions then fail).
    const timer = setTimeout(() => {
      req.destroy();
      resolve(events);
    }, 10_000);
    timer.unref();
    const req = http.get(url, (res) => {
      let buf = '';
      res.on('data', (c: Buffer) => {
        buf += c.toString();
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buf.slice(0, i)));
          buf = buf.slice(i + 1);
          if (events.length === count) {
            req.destroy();
            resolve(events);
          }
        }
      });
      res.on('end', () => resolve(events));
    });
    req.on('error', (e) => (events.length >= count ? undefined : reject(e)));
  });
}

/** A GET kept open: its status once headers arrive, every body chunk, and whether it ended. */
function openGet(url: string): { status: Promise<number>; chunks: string[]; ended: () => boolean; close: () => void } {
  const chunks: string[] = [];
  let ended = false;
  let req: http.ClientRequest;
  const status = new Promise<number>((resolve, reject) => {
    req = http.get(url, (res) => {
      resolve(res.statusCode ?? 0);
      res.setEncoding('utf8');
      res.on('data', (c: string) => chunks.push(c));
      res.on('end', () => (ended = true));
    });
    req.on('error', reject);
  });
  status.catch(() => undefined);
  return { status, chunks, ended: () => ended, close: () => req.destroy() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, pred: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Resolves with 'headers' if the status arrives within `ms`, else 'nothing'. */
const within = (p: Promise<number>, ms: number): Promise<'headers' | 'nothing'> =>
  Promise.race([p.then(() => 'headers' as const), sleep(ms).then(() => 'nothing' as const)]);

describe('selectors', { timeout: 60_000 }, () => {
  it('parses and matches every label operator', () => {
    const l = { app: 'web', tier: 'front' };
    const m = (s: string, labels: Record<string, string> = l) => matchesLabels(parseLabelSelector(s), labels);
    assert.equal(m('app=web'), true);
    assert.equal(m('app==web'), true);
    assert.equal(m('app!=web'), false);
    assert.equal(m('missing!=x'), true);
    assert.equal(m('app in (db, web)'), true);
    assert.equal(m('app notin (db,web)'), false);
    assert.equal(m('tier'), true);
    assert.equal(m('!tier'), false);
    assert.equal(m('!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless'), true);
    assert.equal(m('app=web,tier in (back)'), false);
    assert.equal(m(''), true);
    assert.throws(() => parseLabelSelector('app in web'), /unable to parse requirement/);
  });

  it('parses and matches field selectors (comma is AND)', () => {
    const o = { metadata: { name: 'a', namespace: 'ns1' } };
    assert.equal(matchesFields(parseFieldSelector('metadata.name=a'), o), true);
    assert.equal(matchesFields(parseFieldSelector('metadata.namespace!=ns1'), o), false);
    assert.equal(matchesFields(parseFieldSelector('metadata.namespace!=x,metadata.namespace!=y'), o), true);
    assert.equal(matchesFields(parseFieldSelector('metadata.namespace!=x,metadata.name==b'), o), false);
  });

  it('accepts the field selectors each resource accepts on kube-apiserver v1.37.2, and refuses the rest as it does', async () => {
    const api = new TestApiServer();
    await api.start();
    try {
      api.create('services', { metadata: { namespace: 'a', name: 'lb' }, spec: { type: 'LoadBalancer' } });
      api.create('services', { metadata: { namespace: 'a', name: 'c' }, spec: { type: 'ClusterIP' } });
      const get = async (path: string, sel: string) => {
        const r = await fetch(`${api.url}${path}?fieldSelector=${encodeURIComponent(sel)}`);
        const body = (await r.json()) as { message?: string; items?: Array<{ metadata: { name: string } }> };
        return { code: r.status, message: body.message, names: body.items?.map((i) => i.metadata.name) };
      };
      // What the proxy sends (the namespace opt-out, its own Node) is accepted where it sends it.
      for (const path of ['/api/v1/services', '/apis/discovery.k8s.io/v1/endpointslices']) assert.equal((await get(path, 'metadata.namespace!=x,metadata.namespace!=y')).code, 200);
      assert.equal((await get('/api/v1/nodes', 'metadata.name=n1')).code, 200);
      assert.deepEqual((await get('/api/v1/services', 'spec.type!=LoadBalancer')).names, ['c']);
      assert.deepEqual(await get('/api/v1/nodes', 'metadata.namespace=x'), { code: 400, message: 'field label not supported: metadata.namespace', names: undefined });
      assert.deepEqual(await get('/apis/discovery.k8s.io/v1/endpointslices', 'addressType=IPv4'), { code: 400, message: '"addressType" is not a known field selector: only "metadata.name", "metadata.namespace"', names: undefined });
      assert.equal((await get('/apis/networking.k8s.io/v1/servicecidrs', 'metadata.namespace=x')).code, 200);
    } finally {
      await api.stop();
    }
  });
});

describe('TestApiServer', { timeout: 60_000 }, () => {
  const api = new TestApiServer({ historyLimit: 5 });
  before(() => api.start());
  after(() => api.stop());

  it('pages lists with continue tokens from one snapshot, and expires them on compaction', async () => {
    for (let i = 0; i < 5; i++) api.create('services', { metadata: { namespace: 'p', name: `s${i}` } });
    const page1 = (await (await fetch(`${api.url}/api/v1/namespaces/p/services?limit=2`)).json()) as { items: unknown[]; metadata: { continue: string; resourceVersion: string } };
    assert.equal(page1.items.length, 2);
    api.create('services', { metadata: { namespace: 'p', name: 's9' } });
    // The snapshot holds the stored objects themselves: a change after it must not show in it.
    api.update('services', { metadata: { namespace: 'p', name: 's2', labels: { changed: 'yes' } } });
    const page2 = (await (await fetch(`${api.url}/api/v1/namespaces/p/services?limit=2&continue=${encodeURIComponent(page1.metadata.continue)}`)).json()) as { items: Array<{ metadata: { name: string; labels?: unknown } }>; metadata: { continue: string; resourceVersion: string } };
    assert.deepEqual(page2.items.map((i) => i.metadata.name), ['s2', 's3']);
    assert.equal(page2.items[0].metadata.labels, undefined, 's2 as it was when the list began');
    assert.equal(page2.metadata.resourceVersion, page1.metadata.resourceVersion, 'same snapshot');
    api.compact();
    const expired = await fetch(`${api.url}/api/v1/namespaces/p/services?limit=2&continue=${encodeURIComponent(page2.metadata.continue)}`);
    assert.equal(expired.status, 410);
    // As kube-apiserver v1.37.2: Expired, and a token to go on inconsistently from the last key sent.
    const st = (await expired.json()) as { reason: string; message: string; metadata: { continue?: string } };
    assert.equal(st.reason, 'Expired');
    assert.match(st.message, /^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter, or use the continue token in this response/);
    assert.ok(st.metadata.continue);
    api.update('services', { metadata: { namespace: 'p', name: 's4', labels: { changed: 'later' } } });
    const rest = (await (await fetch(`${api.url}/api/v1/namespaces/p/services?limit=2&continue=${encodeURIComponent(st.metadata.continue)}`)).json()) as { items: Array<{ metadata: { name: string; labels?: unknown } }>; metadata: { continue?: string } };
    assert.deepEqual(rest.items.map((i) => [i.metadata.name, i.metadata.labels]), [['s4', { changed: 'later' }], ['s9', undefined]], 'after s3, as stored now');
    assert.equal(rest.metadata.continue, undefined);
    const garbage = await fetch(`${api.url}/api/v1/namespaces/p/services?limit=2&continue=not-a-token`);
    assert.equal(garbage.status, 400);
  });

  it('counts the bytes it sent, over open and closed connections', async () => {
    const before = api.bytesSent();
    const body = await (await fetch(`${api.url}/api/v1/namespaces/p/services`)).text();
    assert.ok(api.bytesSent() - before > body.length, `${api.bytesSent() - before} bytes counted for a ${body.length}-byte body and its headers`);
    const viaGet = await new Promise<number>((resolve, reject) => {
      http.get(`${api.url}/api/v1/namespaces/p/services`, { agent: false }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => resolve(n));
      }).on('error', reject);
    });
    await until('the connection to close', () => api.bytesSent() - before > body.length + viaGet);
  });

  it('turns selector transitions into ADDED and DELETED for a watcher', async () => {
    const ns = api.create('namespaces', { metadata: { name: 'flip', labels: {} } });
    const rv = ns.metadata!.resourceVersion!;
    // Changes made before the stream opens are replayed from `rv`, so no wait is needed.
    const events = watchEvents(`${api.url}/api/v1/namespaces?watch=true&resourceVersion=${rv}&labelSelector=off%3Dyes`, 2);
    const on = api.update('namespaces', { ...ns, metadata: { ...ns.metadata, labels: { off: 'yes' } } });
    api.update('namespaces', { ...on, metadata: { ...on.metadata, labels: {} } });
    const got = await events;
    assert.deepEqual(got.map((e) => `${e.type} ${e.object.metadata?.name}`), ['ADDED flip', 'DELETED flip']);
  });

  it('answers a watch from a compacted version with an ERROR 410 event', async () => {
    const old = api.store.rv;
    for (let i = 0; i < 6; i++) api.create('nodes', { metadata: { name: `n${i}` } });
    const got = await watchEvents(`${api.url}/api/v1/nodes?watch=true&resourceVersion=${old}`, 1);
    assert.equal(got[0].type, 'ERROR');
    assert.equal(got[0].object.code, 410);
  });

  it('replays history from a version, then sends bookmarks on request', async () => {
    const from = api.store.rv;
    api.create('nodes', { metadata: { name: 'late' } });
    const p = watchEvents(`${api.url}/api/v1/nodes?watch=true&resourceVersion=${from}&allowWatchBookmarks=true`, 2);
    while (api.openWatches === 0) await new Promise((r) => setTimeout(r, 5));
    api.bookmarkAll();
    const got = await p;
    assert.deepEqual(got.map((e) => e.type), ['ADDED', 'BOOKMARK']);
    assert.equal(got[1].object.metadata?.resourceVersion, String(api.store.rv));
  });

  it('holds a faulted list unanswered, answers headers only, or trickles its body, until cleared', async () => {
    const url = `${api.url}/api/v1/namespaces/f/services`;
    for (let i = 0; i < 3; i++) api.create('services', { metadata: { namespace: 'f', name: `s${i}` } });
    try {
      api.setFault('/api/v1/namespaces/f/', 'list', { mode: 'no-headers' });
      const hung = openGet(url);
      assert.equal(await within(hung.status, 300), 'nothing');
      assert.equal(api.hungRequests, 1);
      const watch = openGet(`${url}?watch=true`);
      assert.equal(await within(watch.status, 2000), 'headers', 'a list fault leaves watches alone');
      watch.close();
      hung.close();
      await until('hung request closed', () => api.hungRequests === 0);

      api.setFault('/api/v1/namespaces/f/', 'list', { mode: 'silent' });
      const silent = openGet(url);
      assert.equal(await silent.status, 200);
      await sleep(300);
      assert.deepEqual(silent.chunks, []);
      assert.equal(silent.ended(), false);
      silent.close();

      api.setFault('/api/v1/namespaces/f/', 'list', { mode: 'trickle', bytes: 64, everyMs: 5 });
      const slow = openGet(url);
      assert.equal(await slow.status, 200);
      await until('trickle ended', slow.ended);
      const body = slow.chunks.join('');
      assert.ok(slow.chunks.length >= Math.floor(body.length / 64), `${slow.chunks.length} chunks for ${body.length} bytes`);
      assert.deepEqual((JSON.parse(body) as { items: Array<{ metadata: { name: string } }> }).items.map((i) => i.metadata.name), ['s0', 's1', 's2']);
      assert.throws(() => api.setFault('/', 'watch', { mode: 'trickle', bytes: 1, everyMs: 1 }), /lists only/);

      api.clearFaults();
      const ok = await fetch(url);
      assert.equal(ok.status, 200);
    } finally {
      api.clearFaults();
    }
  });

  it('silences open and new watches while a watch fault is set, then sends what it held, in order', async () => {
    const from = api.store.rv;
    const open = openGet(`${api.url}/api/v1/nodes?watch=true&resourceVersion=${from}`);
    assert.equal(await open.status, 200);
    api.create('nodes', { metadata: { name: 'before-fault' } });
    await until('first event', () => open.chunks.join('').includes('before-fault'));
    try {
      api.setFault('/api/v1/nodes', 'watch', { mode: 'silent' });
      const late = openGet(`${api.url}/api/v1/nodes?watch=true&resourceVersion=${api.store.rv}`);
      assert.equal(await late.status, 200, 'a new watch gets its headers');
      api.create('nodes', { metadata: { name: 'during-fault' } });
      await sleep(200);
      assert.ok(!open.chunks.join('').includes('during-fault'), 'nothing sent while silenced');
      assert.deepEqual(late.chunks, []);
      api.clearFaults();
      await until('held event released', () => open.chunks.join('').includes('during-fault') && late.chunks.join('').includes('during-fault'));
      late.close();
    } finally {
      api.clearFaults();
      open.close();
    }
  });

  it('sends bookmarks only once the version has moved past the one the watch started from', async () => {
    const w = openGet(`${api.url}/api/v1/nodes?watch=true&resourceVersion=${api.store.rv}&allowWatchBookmarks=true`);
    assert.equal(await w.status, 200);
    await until('watch registered', () => api.openWatches > 0);
    api.bookmarkAll();
    await sleep(100);
    assert.deepEqual(w.chunks, [], 'no bookmark at the start version');
    api.create('namespaces', { metadata: { name: `moved-${api.store.rv}` } });
    api.bookmarkAll();
    await until('bookmark', () => w.chunks.join('').includes('BOOKMARK'));
    w.close();
  });

  it('accepts Events, rejects bad selectors and unknown paths, and records every request', async () => {
    const ev = await fetch(`${api.url}/apis/events.k8s.io/v1/namespaces/default/events`, { method: 'POST', body: JSON.stringify({ metadata: { name: 'e' } }) });
    assert.equal(ev.status, 201);
    assert.equal((await fetch(`${api.url}/api/v1/services?fieldSelector=spec.ports%3D1`)).status, 400, 'spec.clusterIP is a Service field selector; spec.ports is not');
    assert.equal((await fetch(`${api.url}/api/v1/pods`)).status, 404);
    assert.equal((await fetch(`${api.url}/api/v1/nodes/late`)).status, 200);
    const last = api.requests.slice(-4).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(last, ['POST /apis/events.k8s.io/v1/namespaces/default/events', 'GET /api/v1/services', 'GET /api/v1/pods', 'GET /api/v1/nodes/late']);
  });

  it('keeps posted Events, refuses one whose namespace is not the path\'s, and fails them with failRequests', async () => {
    const path = '/apis/events.k8s.io/v1/namespaces/shop/events';
    const post = (body: object) => fetch(`${api.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
    const before = api.events.length;
    assert.equal((await post({ metadata: { name: 'a', namespace: 'shop' }, reason: 'R' })).status, 201);
    assert.equal((await post({ metadata: { name: 'b', namespace: 'other' } })).status, 400);
    api.failRequests(403, '/apis/events.k8s.io');
    try {
      assert.equal((await post({ metadata: { name: 'c', namespace: 'shop' } })).status, 403);
    } finally {
      api.failRequests(undefined);
    }
    assert.deepEqual(api.events.slice(before).map((e) => [e.path, (e.event.metadata as { name: string }).name]), [[path, 'a']]);
  });

  it('serves cluster-scoped ServiceCIDRs (list, get, watch), or 404s them when told not to', async () => {
    const from = api.store.rv;
    const sc = api.create('servicecidrs', { metadata: { name: 'extra', namespace: 'ignored' }, spec: { cidrs: ['10.0.0.0/16'] } });
    assert.equal(sc.metadata?.namespace, undefined, 'cluster-scoped');
    const base = `${api.url}/apis/networking.k8s.io/v1/servicecidrs`;
    const list = (await (await fetch(base)).json()) as { kind: string; apiVersion: string; items: Array<{ kind: string; metadata: { name: string }; spec: { cidrs: string[] } }> };
    assert.equal(list.kind, 'ServiceCIDRList');
    assert.equal(list.apiVersion, 'networking.k8s.io/v1');
    assert.deepEqual(list.items.map((i) => [i.kind, i.metadata.name, i.spec.cidrs]), [['ServiceCIDR', 'extra', ['10.0.0.0/16']]]);
    assert.equal((await fetch(`${base}/extra`)).status, 200);
    const events = watchEvents(`${base}?watch=true&resourceVersion=${from}`, 3);
    const changed = api.update('servicecidrs', { ...sc, spec: { cidrs: ['10.0.0.0/16', 'fd00::/108'] } });
    api.delete('servicecidrs', changed);
    assert.deepEqual((await events).map((e) => `${e.type} ${e.object.metadata?.name}`), ['ADDED extra', 'MODIFIED extra', 'DELETED extra']);
    api.notServed.add('servicecidrs');
    try {
      const gone = await fetch(`${base}?limit=500`);
      assert.equal(gone.status, 404);
      assert.equal(((await gone.json()) as { reason: string }).reason, 'NotFound');
      assert.equal((await fetch(`${base}?watch=true`)).status, 404);
      assert.equal((await fetch(`${api.url}/api/v1/nodes/late`)).status, 200, 'other resources are still served');
    } finally {
      api.notServed.delete('servicecidrs');
    }
    assert.equal((await fetch(base)).status, 200);
  });
});
