// API Priority and Fairness against the real kube-apiserver (docs/watching.md, "Against the real API
// server"): a FlowSchema sends our proxy's own ServiceAccount (no other test's user) to a
// PriorityLevelConfiguration with no seats and `limitResponse: Reject`. Such a level still dispatches a
// request when none of its own is executing, so one is kept executing (apf-seat-holder.ts): then every
// request the proxy starts is answered 429 (text/plain, Retry-After: 1). Open watches are not affected
// by APF, so the proxy's connections are cut (ss -K in the node's namespace) to make it ask again,
// while Services change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tier } from './harness';
import { auditedRequests, type AuditEvent } from './audit';
import { applyObjects, kubectlRun } from './kubectl';
import { programmed, serviceWithEndpoints } from './objects';
import { proxyServiceAccount } from './service-account';
import { holdSeat, probe } from './apf-seat-holder';
import { eventually } from '../traffic/harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const at = (e: AuditEvent) => new Date(e.requestReceivedTimestamp).getTime();

test('APF: rejected with 429 while Services change, the proxy waits Retry-After between tries, says so, and loses nothing once let through', async (t) => {
  const tt = tier(t);
  const [ns] = tt.namespaces(1);
  const id = proxyServiceAccount(tt, ns);
  const node = tt.node();
  const proxy = tt.proxy(node, { kubeconfig: id.kubeconfig });
  await proxy.firstSync();
  const gone = serviceWithEndpoints({ namespace: ns, name: 'gone' });
  const moved = serviceWithEndpoints({ namespace: ns, name: 'moved', endpoints: ['10.244.1.10'] });
  await programmed(node, gone);
  await programmed(node, moved);

  const name = `kpn-test-reject-${ns}`;
  const removeApf = () => { kubectlRun(['delete', '--ignore-not-found', `flowschema/${name}`, `prioritylevelconfiguration/${name}`]); };
  tt.defer(removeApf);
  applyObjects([
    {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' } } },
    },
    {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name },
      spec: {
        priorityLevelConfiguration: { name }, matchingPrecedence: 50, distinguisherMethod: { type: 'ByUser' },
        rules: [{
          subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: id.name, namespace: id.namespace } }],
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        }],
      },
    },
  ]);
  // APF's configuration takes a moment to apply: the level shows in its debug dump once it has.
  await eventually(() => kubectlRun(['get', '--raw', '/debug/api_priority_and_fairness/dump_priority_levels']).out.includes(name),
    'the priority level in effect', 10_000);
  // The user's own requests are refused once the holder's executes in the level. A holder that came
  // before the FlowSchema was in effect went to another level: it is replaced until a probe is refused.
  let holder = holdSeat(id.token, ns);
  tt.defer(() => holder.stop());
  await eventually(async () => {
    if (probe(id.token, `/api/v1/namespaces/${ns}/services?limit=1`) === 429) return true;
    await holder.stop();
    holder = holdSeat(id.token, ns);
    await sleep(300);
    return false;
  }, 'a 429 for the test user', 10_000);

  const since = new Date();
  const cut = node.ns.exec('ss', ['-K', '-t', 'dst', '10.99.0.1']);
  assert.match(cut, /10\.99\.0\.1:6443/, 'the proxy\'s connections to the API server were cut');
  // Changes while it is refused: one Service created, one deleted, one's endpoints moved.
  const added = serviceWithEndpoints({ namespace: ns, name: 'added' });
  kubectlRun(['delete', 'service', 'gone', '-n', ns]);
  kubectlRun(['delete', 'endpointslice', 'gone-abcde', '-n', ns]);
  serviceWithEndpoints({ namespace: ns, name: 'moved', endpoints: ['10.244.1.11'] });
  await sleep(4000);
  const ruleset = node.ns.nft('list', 'ruleset');
  assert.ok(!ruleset.includes(added) && ruleset.includes(gone), 'nothing of the changes arrived while refused: the refusal was real');

  removeApf();
  await holder.stop();
  const letThrough = Date.now();
  await eventually(() => {
    const r = node.ns.nft('list', 'ruleset');
    return r.includes(added) && !r.includes(gone) && r.includes('10.244.1.11') && !r.includes('10.244.1.10');
  }, 'every change made while refused in the nftables', 15_000);

  const mine = auditedRequests(id.user, since).filter((e) => (e.verb === 'list' || e.verb === 'watch') && e.userAgent?.startsWith('curl') !== true);
  const rejected = mine.filter((e) => e.responseStatus?.code === 429);
  assert.ok(rejected.length >= 3, `several 429s on lists and watches: ${rejected.length}`);
  // Per resource, every try after a 429 comes at least Retry-After (1 s) later.
  const byResource = new Map<string, AuditEvent[]>();
  for (const e of mine) byResource.set(e.objectRef?.resource ?? '', [...(byResource.get(e.objectRef?.resource ?? '') ?? []), e]);
  for (const [resource, events] of byResource) {
    events.sort((a, b) => at(a) - at(b));
    for (let i = 0; i + 1 < events.length; i++) {
      if (events[i].responseStatus?.code !== 429) continue;
      const gap = at(events[i + 1]) - at(events[i]);
      assert.ok(gap >= 1000, `${resource}: a try ${gap} ms after a 429 (Retry-After: 1)`);
    }
  }
  assert.ok(mine.some((e) => e.responseStatus?.code === 200 && at(e) >= letThrough), 'answered 200 once let through');
  const warned = proxy.lines.filter((l) => l.includes('list/watch failed') && l.includes('429'));
  assert.ok(warned.length >= 1, `the 429s logged:\n${proxy.lines.slice(-20).join('\n')}`);
  assert.equal(JSON.parse(warned[0]).level, 40, 'as a warning');
  assert.equal(proxy.metric('rest_client_requests_total', { code: '429' }), rejected.length, 'each 429 counted by the proxy');
});
