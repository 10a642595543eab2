// API Priority and Fairness against the real kube-apiserver (docs/watching.md, "Against the real API
// server"): a FlowSchema sends our proxy's own ServiceAccount (no other test's user) to a
// PriorityLevelConfiguration with no seats and `limitResponse: Reject`. Such a level still dispatches a
// request when none of its own is executing, so one is kept executing (apf-seat-holder.ts): then every
// request the proxy starts is answered 429 (text/plain, with a Retry-After). Open watches are not
// affected by APF, so the proxy's connections are cut (ss -K in the node's namespace) to make it ask
// again, while Services change.
// Retry-After starts at 1 s, shorter than the proxy's backoff after its first failures (0.8-1.6 s, then
// 1.6-3.2 s), so waiting it could not be told from waiting the backoff. kube-apiserver raises it for a
// level that rejects many requests: retry-after-driver.ts makes the level reject enough of the user's
// own requests to bring it to 4 s or more, and records what the server sends each second. Each try
// after a 429 must come at least that Retry-After later.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tier } from './harness';
import { auditedRequests, type AuditEvent } from './audit';
import { applyObjects, kubectlRun } from './kubectl';
import { programmed, serviceWithEndpoints } from './objects';
import { proxyServiceAccount } from './service-account';
import { holdSeat, probe } from './apf-seat-holder';
import { eventually } from '../traffic/harness';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const at = (e: AuditEvent) => new Date(e.requestReceivedTimestamp).getTime();
/** The Retry-After the driver brings the level to: above the proxy's first two backoffs (at most 3.2 s). */
const RETRY_AFTER = 4;

interface DriverAnswer { at: number; code: number; retryAfter: number | null }

test('APF: rejected with 429 while Services change, the proxy waits the Retry-After the server sent (raised to 4 s) between tries, says so, and loses nothing once let through', async (t) => {
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

  // Retry-After raised to RETRY_AFTER (or more) and kept there by the user's own rejected requests.
  const tokenFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-up-ra-')), 'token');
  fs.writeFileSync(tokenFile, id.token);
  const driver = spawn('ip', ['netns', 'exec', tt.cp.netns, process.execPath, path.join(__dirname, 'retry-after-driver.js'), tt.cp.server, tt.cp.caFile,
    tokenFile, `/api/v1/namespaces/${ns}/services?limit=1`, String(RETRY_AFTER)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const driven: DriverAnswer[] = [];
  let partial = '';
  driver.stdout!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    driven.push(...parts.map((l) => JSON.parse(l) as DriverAnswer));
  });
  const stopDriver = () => { driver.kill('SIGTERM'); };
  tt.defer(stopDriver);
  await eventually(() => driven.some((a) => (a.retryAfter ?? 0) >= RETRY_AFTER),
    () => `Retry-After raised to ${RETRY_AFTER}: ${driven.slice(-5).map((a) => `${a.code}/${a.retryAfter}`).join(' ')}`, 20_000);
  await sleep(2000); // past the rise: the values recorded around each of the proxy's 429s are the steady ones

  const since = new Date();
  const cut = node.ns.exec('ss', ['-K', '-t', 'dst', '10.99.0.1']);
  assert.match(cut, /10\.99\.0\.1:6443/, 'the proxy\'s connections to the API server were cut');
  // Changes while it is refused: one Service created, one deleted, one's endpoints moved.
  const added = serviceWithEndpoints({ namespace: ns, name: 'added' });
  kubectlRun(['delete', 'service', 'gone', '-n', ns]);
  kubectlRun(['delete', 'endpointslice', 'gone-abcde', '-n', ns]);
  serviceWithEndpoints({ namespace: ns, name: 'moved', endpoints: ['10.244.1.11'] });
  // Long enough for two tries of each resource Retry-After apart.
  await sleep(2 * RETRY_AFTER * 1000);
  const ruleset = node.ns.nft('list', 'ruleset');
  assert.ok(!ruleset.includes(added) && ruleset.includes(gone), 'nothing of the changes arrived while refused: the refusal was real');

  removeApf();
  await holder.stop();
  stopDriver();
  const letThrough = Date.now();
  await eventually(() => {
    const r = node.ns.nft('list', 'ruleset');
    return r.includes(added) && !r.includes(gone) && r.includes('10.244.1.11') && !r.includes('10.244.1.10');
  }, 'every change made while refused in the nftables', 15_000);

  const mine = auditedRequests(id.user, since).filter((e) => (e.verb === 'list' || e.verb === 'watch') && e.userAgent?.startsWith('curl') !== true
    && e.userAgent !== 'kpn-retry-after-driver');
  const rejected = mine.filter((e) => e.responseStatus?.code === 429);
  assert.ok(rejected.length >= 3, `several 429s on lists and watches: ${rejected.length}`);
  // Per resource, every try after a 429 comes at least the Retry-After the server sent then later: the
  // smallest the driver was given within 1.5 s of the 429 (the value changes at most once a second).
  const sentAround = (t: number) => Math.min(...driven.filter((a) => a.code === 429 && a.retryAfter !== null && Math.abs(a.at - t) <= 1500).map((a) => a.retryAfter!));
  const byResource = new Map<string, AuditEvent[]>();
  for (const e of mine) byResource.set(e.objectRef?.resource ?? '', [...(byResource.get(e.objectRef?.resource ?? '') ?? []), e]);
  const gaps: string[] = [];
  for (const [resource, events] of byResource) {
    events.sort((a, b) => at(a) - at(b));
    for (let i = 0; i + 1 < events.length; i++) {
      if (events[i].responseStatus?.code !== 429) continue;
      const gap = at(events[i + 1]) - at(events[i]);
      const retryAfter = sentAround(at(events[i]));
      assert.ok(Number.isFinite(retryAfter), `${resource}: no Retry-After recorded around the 429 at ${events[i].requestReceivedTimestamp}`);
      assert.ok(gap >= retryAfter * 1000, `${resource}: a try ${gap} ms after a 429 with Retry-After: ${retryAfter}`);
      gaps.push(`${resource} ${gap}/${retryAfter * 1000}`);
    }
  }
  // Enough of them with a Retry-After longer than the backoff, for a client that ignored it to fail here.
  assert.ok(gaps.filter((g) => Number(g.split('/')[1]) >= RETRY_AFTER * 1000).length >= 5, `tries after a 429 with Retry-After >= ${RETRY_AFTER} s: ${gaps.join(', ')}`);
  t.diagnostic(`gap/Retry-After (ms): ${gaps.join(', ')}`);
  assert.ok(mine.some((e) => e.responseStatus?.code === 200 && at(e) >= letThrough), 'answered 200 once let through');
  const warned = proxy.lines.filter((l) => l.includes('list/watch failed') && l.includes('429'));
  assert.ok(warned.length >= 1, `the 429s logged:\n${proxy.lines.slice(-20).join('\n')}`);
  assert.equal(JSON.parse(warned[0]).level, 40, 'as a warning');
  // Each with the Retry-After the server was sending and a wait no shorter.
  const sent = new Set(driven.map((a) => a.retryAfter));
  for (const w of warned.map((l) => JSON.parse(l))) {
    assert.ok(sent.has(w.retryAfterSeconds) && w.retryInMs >= w.retryAfterSeconds * 1000, `the warning says the Retry-After and the wait: ${JSON.stringify(w)}`);
  }
  assert.equal(proxy.metric('rest_client_requests_total', { code: '429' }), rejected.length, 'each 429 counted by the proxy');
});
