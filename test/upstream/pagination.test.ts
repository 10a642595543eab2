// A paginated first list against the real kube-apiserver: with more Services than our page size
// (the reflector's default limit, 500; not a config option), the Service list comes in pages joined by
// the server's continue tokens, and every Service is programmed. The Services (ClusterIP, no
// endpoints) are made and removed through the REST API in parallel (bulk.ts): kubectl is too slow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tier } from './harness';
import { auditedRequests } from './audit';
import { createServices, deleteMany } from './bulk';
import { proxyServiceAccount } from './service-account';
import { eventually } from '../traffic/harness';

const COUNT = 1200;
const PAGE = 500;

test(`pagination: ${COUNT} Services listed in pages of ${PAGE} with continue tokens, every one programmed`, async (t) => {
  const since = new Date();
  const tt = tier(t);
  const [ns] = tt.namespaces(1);
  const names = Array.from({ length: COUNT }, (_, i) => `s${i}`);
  tt.defer(() => deleteMany(`/api/v1/namespaces/${ns}/services`, names));
  const ips = createServices(ns, names);

  const id = proxyServiceAccount(tt, ns);
  const node = tt.node();
  const proxy = tt.proxy(node, { kubeconfig: id.kubeconfig });
  await proxy.firstSync();
  await eventually(() => {
    const r = node.ns.nft('list', 'ruleset');
    return ips.every((ip) => r.includes(ip));
  }, () => `all ${COUNT} ClusterIPs in the nftables`, 20_000);

  const lists = auditedRequests(id.user, since).filter((e) => e.verb === 'list' && e.objectRef?.resource === 'services');
  const query = lists.map((e) => new URLSearchParams(e.requestURI.split('?')[1] ?? ''));
  const pages = Math.ceil((COUNT + 1) / PAGE); // and the `kubernetes` Service in default
  assert.equal(lists.length, pages, lists.map((e) => e.requestURI).join('\n'));
  assert.ok(query.every((q) => q.get('limit') === String(PAGE)), 'every page asked with our limit');
  assert.equal(query.filter((q) => q.get('continue')).length, pages - 1, 'every page after the first asked with a continue token');
  assert.deepEqual(lists.map((e) => e.responseStatus?.code), lists.map(() => 200));
});
