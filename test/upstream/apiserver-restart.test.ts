// kube-apiserver restarted under our running proxy (docs/watching.md, "Against the real API server"):
// open watches are held through its graceful shutdown, then reset; connections are refused until the
// new one listens; then, where etcd was compacted past a watch's version, the watch ends with 410
// "too old resource version". Changes made during and right after the restart must all reach the
// node's nftables, with at most one relist per resource and no storm of full syncs.
// These tests restart kube-apiserver and compact etcd: they run on a control plane of their own
// (privateControlPlane()), never the tier's shared one.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { compactEtcd, privateControlPlane, restartApiserver } from './control-plane';
import { tier } from './harness';
import { auditedRequests, type AuditEvent } from './audit';
import { applyObjects, getJson, kubectl, kubectlRun } from './kubectl';
import { clientCertificate, writeKubeconfig } from './kubeconfig';
import { serviceWithEndpoints, programmed } from './objects';
import { eventually } from '../traffic/harness';
import type { TierNode } from './node';
import { spawn } from 'node:child_process';
import * as path from 'node:path';

const cp = privateControlPlane();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FULL_SYNCS = 'kubeproxy_sync_full_proxy_rules_duration_seconds_count';
const WATCHED = ['services', 'endpointslices', 'nodes', 'namespaces', 'servicecidrs'];

/** Retries `fn` (kubectl against a restarting server) until it succeeds, 30 s at most. */
async function whileRestarting<T>(fn: () => T): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try { return fn(); } catch (e) {
      if (Date.now() > deadline) throw e;
      await sleep(200);
    }
  }
}

/** Successful lists per resource among `events`. */
function listsByResource(events: AuditEvent[]): Record<string, number> {
  const n: Record<string, number> = {};
  for (const e of events) {
    if (e.verb !== 'list' || e.responseStatus?.code !== 200) continue;
    const r = e.objectRef?.resource ?? '?';
    n[r] = (n[r] ?? 0) + 1;
  }
  return n;
}

const nftHas = (node: TierNode, s: string) => node.ns.nft('list', 'ruleset').includes(s);

/**
 * A proxy (its own user, system:masters, so the audit log tells its requests apart) with Services
 * `a` and `gone` programmed; `beforeRestart` runs, then kube-apiserver is restarted. During the restart a
 * Service `b` is created; right after it `a`'s EndpointSlice changes and `gone` is deleted. Returns the
 * proxy's requests and full syncs since the restart began.
 */
async function restartScenario(t: TestContext, beforeRestart: () => void) {
  const tt = tier(t);
  const [ns] = tt.namespaces(1);
  const node = tt.node();
  const user = `kpn-restart-${ns}`;
  const proxy = tt.proxy(node, { kubeconfig: writeKubeconfig(clientCertificate(user, ['system:masters'])) });
  await proxy.firstSync();
  const ipA = serviceWithEndpoints({ namespace: ns, name: 'a', endpoints: ['10.244.1.10'] });
  const ipGone = serviceWithEndpoints({ namespace: ns, name: 'gone', endpoints: ['10.244.1.20'] });
  await programmed(node, ipA);
  await programmed(node, ipGone);
  assert.ok(nftHas(node, '10.244.1.10'));

  beforeRestart();
  const fullBefore = proxy.metric(FULL_SYNCS);
  const linesBefore = proxy.lines.length;
  const since = new Date();
  const restarted = restartApiserver(cp);
  await sleep(1000); // into the graceful shutdown
  const ipB = await whileRestarting(() => serviceWithEndpoints({ namespace: ns, name: 'b', endpoints: ['10.244.1.30'] }));
  await restarted;
  // Right after: the first requests of a new server may be refused (403 before RBAC is loaded).
  await whileRestarting(() => serviceWithEndpoints({ namespace: ns, name: 'a', endpoints: ['10.244.1.11'] }));
  await whileRestarting(() => kubectl(['delete', '-n', ns, 'service/gone', 'endpointslice/gone-abcde']));

  await eventually(() => nftHas(node, ipB) && nftHas(node, '10.244.1.30'), `Service b (${ipB}, created during the restart) in the nftables`, 30_000);
  await eventually(() => nftHas(node, '10.244.1.11') && !nftHas(node, '10.244.1.10'), "a's new endpoint 10.244.1.11 in place of 10.244.1.10", 30_000);
  await eventually(() => !nftHas(node, ipGone) && !nftHas(node, '10.244.1.20'), `Service gone (${ipGone}) out of the nftables`, 30_000);
  assert.ok(nftHas(node, ipA), 'Service a still programmed');
  await sleep(1000); // anything a storm would still do
  const seen = auditedRequests(user, since);
  const expired = proxy.lines.slice(linesBefore).filter((l) => l.includes('resourceVersion expired; relisting')).map((l) => JSON.parse(l).resource as string);
  return { seen, expired, lists: listsByResource(seen), fullSyncs: proxy.metric(FULL_SYNCS) - fullBefore };
}

function assertNoStorm(r: Awaited<ReturnType<typeof restartScenario>>): void {
  for (const res of WATCHED) {
    assert.ok((r.lists[res] ?? 0) <= 1, `at most one relist of ${res}: ${JSON.stringify(r.lists)}`);
    // A relist only where the watch expired (410), and each expiry relisted once.
    assert.equal(r.lists[res] ?? 0, r.expired.filter((x) => x === res).length, `${res}: relists ${JSON.stringify(r.lists)}, expired ${r.expired.join(',')}`);
  }
  assert.ok(r.fullSyncs <= 2, `full syncs since the restart: ${r.fullSyncs}`);
  const watchesAfter = r.seen.filter((e) => e.verb === 'watch' && e.responseStatus?.code === 200).map((e) => e.objectRef?.resource);
  for (const res of ['services', 'endpointslices']) assert.ok(watchesAfter.includes(res), `a new watch of ${res} after the restart: ${watchesAfter.join(',')}`);
  const attempts = r.seen.filter((e) => e.verb === 'list' || e.verb === 'watch').length;
  assert.ok(attempts <= 60, `list and watch requests since the restart: ${attempts} (a retry storm)`);
}

test('kube-apiserver restarted mid-watch: changes during and after it reach the nftables, at most one relist per resource, no full-sync storm', async (t) => {
  const r = await restartScenario(t, () => {});
  assertNoStorm(r);
  t.diagnostic(`expired ${r.expired.join(',')}; lists ${JSON.stringify(r.lists)}, full syncs ${r.fullSyncs}`);
});

test('etcd compacted, then kube-apiserver restarted: the watches expire (410), one relist each, no change lost', async (t) => {
  let compactedAt = 0;
  const r = await restartScenario(t, () => {
    compactedAt = compactEtcd(cp);
    // The server's revision moves past every watch's version (a write no watch of ours selects), so
    // the new watch cache starts after them: without this a quiet resource resumes without a 410.
    applyObjects([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'move-revision', namespace: 'default' } }]);
  });
  assert.ok(compactedAt > 0);
  assertNoStorm(r);
  // Services always: Service b's slice is written after it, so the Service watch's version is older than
  // the new watch cache's start. The EndpointSlice watch's may equal it (no 410 then: the real server's
  // answer, docs/watching.md), so it is not required here.
  for (const res of ['services', 'nodes', 'namespaces']) {
    assert.ok(r.expired.includes(res), `the ${res} watch expired (410) and relisted: ${r.expired.join(',')}`);
  }
  kubectlRun(['delete', 'configmap', 'move-revision', '-n', 'default', '--wait=false']);
  t.diagnostic(`expired ${r.expired.join(',')}; lists ${JSON.stringify(r.lists)}, full syncs ${r.fullSyncs}`);
});

/** The `resourceVersion` query parameter of a request (0 when absent). */
const rvOf = (e: AuditEvent) => Number(new URL(e.requestURI, 'https://x').searchParams.get('resourceVersion') ?? 0);

test('bookmarks: after a change no watch of ours selects, the next Service watch resumes from the bookmark\'s version, without a relist', async (t) => {
  const tt = tier(t);
  const [ns] = tt.namespaces(1);
  const node = tt.node();
  const user = `kpn-bookmarks-${ns}`;
  const kubeconfig = writeKubeconfig(clientCertificate(user, ['system:masters']));
  const since = new Date();
  // Watches of 6 s: the server's bookmark comes ~2 s before their end.
  const child = spawn('ip', ['netns', 'exec', node.ns.name, process.execPath, path.join(__dirname, 'short-watches.js'), kubeconfig, node.name, '6'],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  child.stdout!.on('data', (d: Buffer) => out.push(...d.toString().split('\n').filter(Boolean)));
  child.stderr!.on('data', (d: Buffer) => out.push(d.toString()));
  tt.defer(() => { child.kill('SIGTERM'); });
  await eventually(() => out.includes('synced'), () => `the watcher's first lists: ${out.join('\n')}`, 15_000);
  const serviceWatches = () => auditedRequests(user, since).filter((e) => e.verb === 'watch' && e.objectRef?.resource === 'services');
  await eventually(() => serviceWatches().length > 0, 'a Service watch');

  // A Service our label selector (!service.kubernetes.io/headless) leaves out: the Services' version moves, no event for us.
  applyObjects([{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'unselected', namespace: ns, labels: { 'service.kubernetes.io/headless': '' } },
    spec: { clusterIP: 'None', selector: { app: 'x' }, ports: [{ port: 80 }] } }]);
  const moved = Number(getJson(['service', 'unselected', '-n', ns]).metadata.resourceVersion);
  const resumed = await eventually(() => serviceWatches().find((e) => rvOf(e) >= moved),
    () => `a Service watch from ${moved} or later: ${serviceWatches().map((e) => rvOf(e)).join(', ')}`, 20_000);
  const seen = auditedRequests(user, since);
  const watches = seen.filter((e) => e.verb === 'watch');
  assert.ok(watches.every((e) => e.requestURI.includes('allowWatchBookmarks=true')), 'every watch asks for bookmarks');
  assert.equal(seen.filter((e) => e.verb === 'list' && e.objectRef?.resource === 'services').length, 1, 'the first list only: the version came from a bookmark');
  assert.ok(!out.some((l) => l.includes('unselected')), `no event for the unselected Service: ${out.join('\n')}`);
  const rvs = serviceWatches().sort((a, b) => a.requestReceivedTimestamp.localeCompare(b.requestReceivedTimestamp)).map(rvOf);
  assert.ok(rvs[0] < moved, `the first Service watch began before the change: ${rvs[0]} < ${moved}`);
  assert.ok(rvs.every((v, i) => i === 0 || v >= rvs[i - 1]), `Service watches never go back: ${rvs.join(', ')}`);
  t.diagnostic(`Service watches from ${rvs.join(', ')}; resumed at ${rvOf(resumed!)} >= ${moved}`);
});
