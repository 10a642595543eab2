// A paginated list whose continue token expires between two of our proxy's page requests, on the real
// kube-apiserver (docs/watching.md, "Against the real API server").
//
// How kube-apiserver v1.37.2 serves a list with `limit` (k8s.io/apiserver v0.37.2, pkg/storage/cacher):
// the first page is a consistent read from the watch cache; a `continue` page is served from the
// cache's snapshot at the token's revision (ListFromCacheSnapshot, on by default) and goes to etcd only
// when no snapshot at or before that revision is left (delegator.go GetList, cacher.go
// ShouldDelegateContinue). The cache drops the snapshots older than etcd's compaction revision, which it
// learns from the key compact_rev_key that every kube-apiserver's compactor writes (etcd3/compact.go),
// polling for it every 15 s (cacher/compactor.go compactorPollPeriod). Then etcd answers the page 410
// Expired, "The provided continue parameter is too old ...". So a token expires when a compaction
// (every 5 min by default) falls between two pages and the next page comes more than the poll later.
//
// Here the next page is held back by API Priority and Fairness, as on a busy API server: a FlowSchema
// sends our proxy's Service lists (and the test's seat holders, apf-seat-holder.ts) to a level of a
// few seats with a queue. Holders fill it; the proxy's first page queues; as many holders queue behind
// it; the first holders leave, the first page runs and the holders behind it take every seat, so the
// second page waits in the queue. Meanwhile a write moves etcd's revision and etcd is compacted and
// told (control-plane.sh compact). Once the admin's own token of the same revision gets 410, the
// holders leave and the proxy's second page is answered 410.
// The wait can reach the 15 s poll and more: longer than APF's default queue limit, a quarter of
// --request-timeout (60 s); this private control plane runs with --request-timeout=2m (30 s in the queue).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactEtcd, privateControlPlane } from './control-plane';
import { tier } from './harness';
import { auditedRequests, type AuditEvent } from './audit';
import { applyObjects, kubectl } from './kubectl';
import { createServices } from './bulk';
import { proxyServiceAccount } from './service-account';
import { holdSeat, levelRequests, levelSeats, probe, type SeatHolder } from './apf-seat-holder';
import { eventually } from '../traffic/harness';

const cp = privateControlPlane({ apiserverFlags: ['--request-timeout=2m'] });
const COUNT = 600; // and `kubernetes`: two pages of 500
const FULL_SYNCS = 'kubeproxy_sync_full_proxy_rules_duration_seconds_count';
/** The metrics count each sync once per IP family the node serves: count IPv4's. */
const IPV4 = { ip_family: 'IPv4' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hasContinue = (e: AuditEvent) => new URL(e.requestURI, 'https://x').searchParams.has('continue');

test('a continue token expired between two pages (etcd compacted while the next page waited in APF): 410, listed again from the first page, every Service programmed, at most one extra full sync', async (t) => {
  const tt = tier(t);
  // Not tt.namespaces(): its clean-up deletes the objects one by one, and this control plane goes anyway.
  const ns = `t-continue-${process.pid}`;
  applyObjects([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }]);
  const names = Array.from({ length: COUNT }, (_, i) => `s${i}`);
  const ips = createServices(ns, names);
  const id = proxyServiceAccount(tt, ns);

  const level = `kpn-test-queue-${ns}`;
  applyObjects([
    {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: level },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0,
        limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 50 } } } },
    },
    {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: level },
      spec: {
        priorityLevelConfiguration: { name: level }, matchingPrecedence: 50, distinguisherMethod: { type: 'ByUser' },
        rules: [{
          subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: id.name, namespace: id.namespace } }],
          resourceRules: [
            // The proxy's Service lists only: its other requests (the Namespace list the Service list waits
            // for, watches, its Starting Event in default) go on through other levels.
            { verbs: ['list'], apiGroups: [''], resources: ['services'], clusterScope: true, namespaces: ['*'] },
            { verbs: ['create'], apiGroups: ['events.k8s.io'], resources: ['events'], namespaces: [ns] },
          ],
        }],
      },
    },
  ]);
  const seats = await eventually(() => { try { return levelSeats(level); } catch { return 0; } }, 'the priority level in effect', 10_000);
  const mine = (verb: string) => levelRequests(level).filter((r) => r.user === id.user && r.verb === verb);
  const holders: SeatHolder[] = [];
  t.after(() => Promise.all(holders.map((h) => h.stop())));
  const hold = (n: number) => { const made = Array.from({ length: n }, () => holdSeat(id.token, ns)); holders.push(...made); return made; };
  // Every seat taken. A holder sent before the FlowSchema was in effect went to another level: all are
  // sent again until the level shows them executing.
  let first: SeatHolder[] = [];
  await eventually(async () => {
    await Promise.all(first.map((h) => h.stop()));
    first = hold(seats);
    await sleep(1000);
    return mine('create').filter((r) => r.index === -1).length === seats;
  }, `${seats} seat holders executing in ${level}`, 20_000);

  const since = new Date();
  const node = tt.node();
  const proxy = tt.proxy(node, { kubeconfig: id.kubeconfig });
  await eventually(() => mine('list').some((r) => r.index >= 0), () => `the proxy's first page waiting in ${level}: ${JSON.stringify(levelRequests(level))}`, 20_000);
  const second = hold(seats);
  await eventually(() => mine('create').filter((r) => r.index >= 0).length === seats, 'the second holders queued behind the first page');
  const queue = levelRequests(level).filter((r) => r.index >= 0).sort((a, b) => a.index - b.index);
  assert.equal(queue[0].verb, 'list', `the first page first in the queue: ${JSON.stringify(queue)}`);
  await Promise.all(first.map((h) => h.stop()));

  // The first page ran; the holders behind it took the seats; the second page waits.
  const serviceLists = () => auditedRequests(id.user, since).filter((e) => e.verb === 'list' && e.objectRef?.resource === 'services');
  await eventually(() => mine('list').some((r) => r.index >= 0) && mine('create').filter((r) => r.index === -1).length === seats,
    () => `the second page waiting behind the holders: ${JSON.stringify(levelRequests(level))}`, 20_000);
  const [page1] = serviceLists();
  assert.ok(page1 && !hasContinue(page1) && page1.responseStatus?.code === 200, `the first page answered: ${JSON.stringify(page1)}`);

  // Past the list's revision: a write, then etcd compacted there and told. The admin's own token, of the
  // same revision, expires when the watch cache drops its snapshots (the 15 s poll).
  const token: string = JSON.parse(kubectl(['get', '--raw', '/api/v1/services?limit=1'])).metadata.continue;
  applyObjects([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'move-revision', namespace: ns } }]);
  const compactedAt = compactEtcd(cp);
  const t0 = Date.now();
  await eventually(() => probe(cp.adminToken, `/api/v1/services?limit=1&continue=${encodeURIComponent(token)}`) === 410,
    'a continue token from before the compaction answered 410', 25_000);
  const expiredAfter = Date.now() - t0;
  assert.equal(serviceLists().length, 1, 'the second page still waited in the queue');
  assert.ok(mine('list').some((r) => r.index >= 0), 'the second page still queued');
  const fullBefore = proxy.metric(FULL_SYNCS, IPV4);
  await Promise.all(second.map((h) => h.stop()));

  await proxy.firstSync(30_000);
  await eventually(() => {
    const r = node.ns.nft('list', 'ruleset');
    return ips.every((ip) => r.includes(ip));
  }, `all ${COUNT} ClusterIPs in the nftables`, 30_000);
  // The expired page, then one list from the first page again, whole: no other list, no inconsistent token.
  const lists = serviceLists();
  assert.deepEqual(lists.map((e) => [hasContinue(e), e.responseStatus?.code]), [[false, 200], [true, 410], [false, 200], [true, 200]],
    lists.map((e) => `${e.responseStatus?.code} ${e.requestURI}`).join('\n'));
  assert.equal(lists[1].responseStatus?.reason, 'Expired');
  assert.notEqual(new URL(lists[3].requestURI, 'https://x').searchParams.get('continue'), new URL(lists[1].requestURI, 'https://x').searchParams.get('continue'));
  const said = proxy.lines.filter((l) => l.includes('expired')).map((l) => JSON.parse(l));
  assert.equal(said.length, 1, `one line about the expiry:\n${said.map((l) => JSON.stringify(l)).join('\n')}`);
  assert.equal(said[0].msg, 'list continue token expired (410); listing again from the first page');
  assert.equal(said[0].resource, 'services');
  assert.equal(said[0].pagesListed, 1);
  assert.match(said[0].err, /HTTP 410 Expired: The provided continue parameter is too old to display a consistent list result/);
  // The first sync waited for the whole list (none while the second page waited), and the relist added
  // at most one more.
  const fullSyncs = proxy.metric(FULL_SYNCS, IPV4);
  assert.equal(fullBefore, 0, 'no sync before the Services were listed');
  assert.ok(fullSyncs >= 1 && fullSyncs <= 2, `full syncs: ${fullSyncs}`);
  t.diagnostic(`${seats} seats; compacted at ${compactedAt}; the token expired ${expiredAfter} ms after; full syncs ${fullSyncs}`);
});
