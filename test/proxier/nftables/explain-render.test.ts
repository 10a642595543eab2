// explain's renderers on one realistic Service: the text for people, exactly, and the JSON
// document's shape and fields for tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { explainEndpoints } from '../../../src/core/endpoint-reasons';
import { explainPath } from '../../../src/proxier/nftables/explain-path';
import { explainServicePort } from '../../../src/proxier/nftables/explain-service-port';
import {
  EXPLAIN_API_VERSION, explainDocument, renderExplainJson, renderExplainText, type ServicePortExplanation,
} from '../../../src/proxier/nftables/explain-render';
import type { HealthCheckNodePortFacts } from '../../../src/proxier/nftables/explain-health-check';
import { ctx, sp } from './fixtures';

const NODE = { nodeName: 'node1', zone: 'zone-a' };

const web = sp('web', {
  key: 'ns1/web:http/TCP/IPv4', portName: 'http', nodePort: 30080, loadBalancerIPs: ['5.6.7.8'],
  loadBalancerSourceRanges: ['203.0.113.0/24'], externalPolicyLocal: true, healthCheckNodePort: 32000,
});

const slices: V1EndpointSlice[] = [{
  metadata: { namespace: 'ns1', name: 'web-abc', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: [
    { addresses: ['10.180.0.1'], nodeName: 'node1', zone: 'zone-a', conditions: { ready: true, serving: true, terminating: false } },
    { addresses: ['10.180.1.1'], nodeName: 'node2', zone: 'zone-b', conditions: { ready: true, serving: true, terminating: false } },
    { addresses: ['10.180.1.2'], nodeName: 'node2', zone: 'zone-b', conditions: { ready: false, serving: true, terminating: true } },
  ],
}];

function explanation(): ServicePortExplanation {
  return {
    ...explainServicePort({ sp: web, slices, node: NODE, ctx: ctx(), localAddresses: ['127.0.0.1', '192.168.0.2'] }),
    kernel: [
      { kind: 'element', set: 'cluster-ip-ports', key: '172.30.0.41 . tcp . 80', expected: '172.30.0.41 . tcp . 80', kernel: '172.30.0.41 . tcp . 80', status: 'as expected' },
      { kind: 'element', set: 'endpoints-2', key: '172.30.0.41 . tcp . 80 . 1', expected: '172.30.0.41 . tcp . 80 . 1 : 10.180.1.1 . 8080', status: 'differs', kernel: '172.30.0.41 . tcp . 80 . 1 : 10.180.9.9 . 8080' },
      { kind: 'chain', chain: 'service-X', key: 'service-X', expected: 'rule one\nrule two', status: 'missing' },
    ],
  };
}

test('text: one block per ServicePort, aligned columns', () => {
  const text = renderExplainText('ns1/web', NODE, [explanation()]);
  // EXPLAIN_GOLDEN=<file>: write the text there (to review a change, then paste it below).
  if (process.env.EXPLAIN_GOLDEN) writeFileSync(process.env.EXPLAIN_GOLDEN, text);
  assert.equal(text, GOLDEN);
});

test('JSON: the documented fields, plain data that survives a round trip', () => {
  const x = explanation();
  const doc = JSON.parse(renderExplainJson('ns1/web', NODE, [x]));
  assert.deepEqual(doc, JSON.parse(JSON.stringify(explainDocument('ns1/web', NODE, [x]))));
  assert.deepEqual(Object.keys(doc), ['apiVersion', 'service', 'node', 'servicePorts']);
  assert.equal(doc.apiVersion, EXPLAIN_API_VERSION);
  assert.deepEqual(doc.node, { name: 'node1', zone: 'zone-a' });
  const port = doc.servicePorts[0];
  assert.deepEqual(Object.keys(port), ['key', 'portName', 'protocol', 'family', 'port', 'addresses', 'policies', 'endpoints', 'paths', 'kernel']);
  assert.deepEqual([port.key, port.portName, port.protocol, port.family, port.port], ['ns1/web:http/TCP/IPv4', 'http', 'TCP', 'IPv4', 80]);
  assert.deepEqual(Object.keys(port.endpoints).sort(),
    ['clusterFallback', 'hasAny', 'list', 'localFallback', 'topology', 'usesCluster', 'usesLocal']);
  assert.deepEqual(port.endpoints.list[1], {
    ip: '10.180.1.1', port: 8080, slices: ['web-abc'], nodeName: 'node2', zone: 'zone-b', ready: true, serving: true, terminating: false,
    isLocal: false, cluster: { use: 'used' }, local: { use: 'unused', reason: { code: 'not-local', text: 'runs on node2, not on this node' } },
  });
  assert.deepEqual(port.policies, {
    internalTrafficPolicy: 'Cluster', masqueradeAll: false, detectLocal: 'source in 10.0.0.0/16', externalTrafficPolicy: 'Local', healthCheckNodePort: 32000,
  });
  const denied = port.paths.find((p: { source?: string }) => p.source === 'not allowed');
  assert.deepEqual(Object.keys(denied).sort(), ['client', 'ip', 'kind', 'masquerade', 'outcome', 'port', 'source', 'steps', 'summary']);
  assert.equal(denied.outcome, 'drop');
  assert.deepEqual(denied.steps[0], { hook: 'filter prerouting', chain: 'filter-prerouting', rule: 'jump firewall-check', verdict: 'jump firewall-check' });
  assert.equal(port.kernel[1].status, 'differs');
  assert.equal(port.kernel[1].kernel, '172.30.0.41 . tcp . 80 . 1 : 10.180.9.9 . 8080');
});

test('JSON and text of a refused ServicePort, and without a kernel check', () => {
  const bad = sp('bad', { clusterIP: 'fd00::1' });
  const x: ServicePortExplanation = { sp: bad, endpoints: explainEndpoints(bad, [], NODE), path: explainPath({ sp: bad, selection: undefined, ctx: ctx() }) };
  const doc = explainDocument('ns1/bad', NODE, [x]);
  assert.match(doc.servicePorts[0].refused ?? '', /clusterIP/);
  assert.equal('kernel' in doc.servicePorts[0], false);
  const text = renderExplainText('ns1/bad', NODE, [x]);
  assert.match(text, /REFUSED by the proxy, nothing is programmed: ServicePort ns1\/bad:p80\/TCP: clusterIP/);
  assert.match(text, /Endpoints: none listed \(connections are rejected\)/);
  assert.doesNotMatch(text, /Kernel objects|Path of a new connection/);
  assert.equal(renderExplainText('ns1/none', NODE, []), 'Service ns1/none on node node1 (zone zone-a): no ServicePort of a family this proxy serves\n');
});

test('the Service\'s health-check node port: a block after the head in text, a field before servicePorts in JSON', () => {
  const facts: HealthCheckNodePortFacts = {
    port: 32000,
    conflicts: [{ kind: 'Service', with: 'ns1/old', owner: 'ns1/old', note: 'Service ns1/old has the same healthCheckNodePort 32000: the proxy serves ns1/old\'s health check on it (the older Service gets it), not this Service\'s' }],
    checked: ['A', 'B'],
    notChecked: ['C'],
  };
  const text = renderExplainText('ns1/web', NODE, [explanation()], facts);
  assert.equal(text.split('\n').slice(0, 7).join('\n'), [
    'Service ns1/web on node node1 (zone zone-a)',
    '',
    'Health-check node port 32000: 1 CONFLICT',
    '  Service ns1/old has the same healthCheckNodePort 32000: the proxy serves ns1/old\'s health check on it (the older Service gets it), not this Service\'s',
    '  checked: A; B',
    '  not checked: C',
    '',
  ].join('\n'));
  assert.equal(text, GOLDEN.replace('\n\n', `\n\n${text.split('\n').slice(2, 7).join('\n')}\n`), 'the rest as without it');
  const doc = JSON.parse(renderExplainJson('ns1/web', NODE, [explanation()], facts));
  assert.deepEqual(Object.keys(doc), ['apiVersion', 'service', 'node', 'healthCheckNodePort', 'servicePorts']);
  assert.deepEqual(doc.healthCheckNodePort, facts);
  assert.match(renderExplainText('ns1/web', NODE, [explanation()], { ...facts, conflicts: [] }), /\nHealth-check node port 32000: no conflict found\n/);
});

const GOLDEN = `Service ns1/web on node node1 (zone zone-a)

ns1/web:http/TCP/IPv4  port http 80/TCP IPv4
  Reachable on
    ClusterIP     172.30.0.41:80
    NodePort      192.168.0.2:30080  every local IPv4 address but loopback
    LoadBalancer  5.6.7.8:80         only from 203.0.113.0/24 (loadBalancerSourceRanges)
  Policies
    internalTrafficPolicy Cluster, externalTrafficPolicy Local, healthCheckNodePort 32000, sessionAffinity None
    topology none
    masquerade ClusterIP connections not from a local pod (source in 10.0.0.0/16)
  Endpoints: 3 listed; used from this node: 2 for cluster-wide traffic, 1 for Local-policy traffic
    ENDPOINT         NODE   ZONE    STATE                 CLUSTER  LOCAL  WHY
    10.180.0.1:8080  node1  zone-a  ready                 used     used
    10.180.1.1:8080  node2  zone-b  ready                 used     -      local not-local: runs on node2, not on this node
    10.180.1.2:8080  node2  zone-b  terminating, serving  -        -      cluster terminating-not-needed: terminating; ready endpoints exist; local not-local: runs on node2, not on this node
  Kernel objects: 3 checked, 2 not as expected
    STATUS       OBJECT                    KEY                         EXPECTED           KERNEL
    as expected  element cluster-ip-ports  172.30.0.41 . tcp . 80      (present)
    differs      element endpoints-2       172.30.0.41 . tcp . 80 . 1  10.180.1.1 . 8080  10.180.9.9 . 8080
    missing      chain                     service-X                   2 rules            (none)
  Path of a new connection
    to ClusterIP 172.30.0.41:80 from a pod on this node: DNAT to 1 of 2 endpoints, source kept
      nat prerouting   nat-prerouting      jump services                                                             -> jump services
                       services            ip daddr . meta l4proto ...ort @cluster-ip-ports goto cluster-ip-traffic  -> goto cluster-ip-traffic
                       cluster-ip-traffic  ip saddr != 10.0.0.0/16 jump mark-for-masquerade                          -> no match (a local pod): source kept
                       cluster-ip-traffic  goto select-endpoint                                                      -> goto select-endpoint
                       select-endpoint     dnat ip to ip daddr . me... dport . numgen random mod 2 map @endpoints-2  -> dnat to 1 of 2: 10.180.0.1:8080, 10.180.1.1:8080
      nat postrouting  nat-postrouting     ct status dnat meta mark... . ip daddr @hairpin jump mark-for-masquerade  -> masquerade only if the pod reached itself
                       masquerading        meta mark & 0x4000 == 0x0 return                                          -> return: the endpoint sees the client's address
    to ClusterIP 172.30.0.41:80 from a client outside the cluster: DNAT to 1 of 2 endpoints, source masqueraded
      nat prerouting   nat-prerouting      jump services                                                             -> jump services
                       services            ip daddr . meta l4proto ...ort @cluster-ip-ports goto cluster-ip-traffic  -> goto cluster-ip-traffic
                       cluster-ip-traffic  ip saddr != 10.0.0.0/16 jump mark-for-masquerade                          -> jump mark-for-masquerade: masquerade
                       cluster-ip-traffic  goto select-endpoint                                                      -> goto select-endpoint
                       select-endpoint     dnat ip to ip daddr . me... dport . numgen random mod 2 map @endpoints-2  -> dnat to 1 of 2: 10.180.0.1:8080, 10.180.1.1:8080
      nat postrouting  masquerading        masquerade fully-random                                                   -> masquerade: the endpoint sees this node's address
    to NodePort 192.168.0.2:30080 from a pod on this node: DNAT to 1 of 2 endpoints, source kept
      nat prerouting   nat-prerouting            jump services                                                             -> jump services
                       services                  meta l4proto . th dport ...8 fib daddr type local goto nodeport-services  -> goto nodeport-services
                       nodeport-services         meta l4proto . th dport @nodeports-local goto nodeport-local-traffic      -> goto nodeport-local-traffic
                       nodeport-local-traffic    ip saddr 10.0.0.0/16 jump select-nodeport-endpoint                        -> jump select-nodeport-endpoint: a local pod reaches every endpoint
                       select-nodeport-endpoint  dnat ip to meta l4proto ...numgen random mod 2 map @nodeport-endpoints-2  -> dnat to 1 of 2: 10.180.0.1:8080, 10.180.1.1:8080
      nat postrouting  nat-postrouting           ct status dnat meta mark... . ip daddr @hairpin jump mark-for-masquerade  -> masquerade only if the pod reached itself
                       masquerading              meta mark & 0x4000 == 0x0 return                                          -> return: the endpoint sees the client's address
    to NodePort 192.168.0.2:30080 from a client outside the cluster: DNAT to its one endpoint, source kept
      nat prerouting   nat-prerouting                  jump services                                                             -> jump services
                       services                        meta l4proto . th dport ...8 fib daddr type local goto nodeport-services  -> goto nodeport-services
                       nodeport-services               meta l4proto . th dport @nodeports-local goto nodeport-local-traffic      -> goto nodeport-local-traffic
                       nodeport-local-traffic          goto select-nodeport-local-endpoint                                       -> goto select-nodeport-local-endpoint: this node's endpoints, source kept
                       select-nodeport-local-endpoint  dnat ip to meta l4proto ... random mod 1 map @nodeport-local-endpoints-1  -> dnat to 1 of 1: 10.180.0.1:8080
      nat postrouting  masquerading                    meta mark & 0x4000 == 0x0 return                                          -> return: the endpoint sees the client's address
    to LoadBalancer 5.6.7.8:80 from a pod on this node, source allowed: DNAT to 1 of 2 endpoints, source kept
      filter prerouting  filter-prerouting       jump firewall-check                                                       -> jump firewall-check
                         firewall-check          ip daddr . meta l4proto .... th dport . ip saddr != @firewall-allow drop  -> return: source in 203.0.113.0/24 (@firewall-allow)
      nat prerouting     nat-prerouting          jump services                                                             -> jump services
                         services                ip daddr . meta l4proto ...port @other-service-ports goto other-services  -> goto other-services
                         other-services          ip daddr . meta l4proto ...ernal-local-ports goto external-local-traffic  -> goto external-local-traffic
                         external-local-traffic  ip saddr 10.0.0.0/16 jump select-endpoint                                 -> jump select-endpoint: a local pod reaches every endpoint
                         select-endpoint         dnat ip to ip daddr . me... dport . numgen random mod 2 map @endpoints-2  -> dnat to 1 of 2: 10.180.0.1:8080, 10.180.1.1:8080
      nat postrouting    nat-postrouting         ct status dnat meta mark... . ip daddr @hairpin jump mark-for-masquerade  -> masquerade only if the pod reached itself
                         masquerading            meta mark & 0x4000 == 0x0 return                                          -> return: the endpoint sees the client's address
    to LoadBalancer 5.6.7.8:80 from a client outside the cluster, source allowed: DNAT to its one endpoint, source kept
      filter prerouting  filter-prerouting       jump firewall-check                                                       -> jump firewall-check
                         firewall-check          ip daddr . meta l4proto .... th dport . ip saddr != @firewall-allow drop  -> return: source in 203.0.113.0/24 (@firewall-allow)
      nat prerouting     nat-prerouting          jump services                                                             -> jump services
                         services                ip daddr . meta l4proto ...port @other-service-ports goto other-services  -> goto other-services
                         other-services          ip daddr . meta l4proto ...ernal-local-ports goto external-local-traffic  -> goto external-local-traffic
                         external-local-traffic  goto select-local-endpoint                                                -> goto select-local-endpoint: this node's endpoints, source kept
                         select-local-endpoint   dnat ip to ip daddr . me... . numgen random mod 1 map @local-endpoints-1  -> dnat to 1 of 1: 10.180.0.1:8080
      nat postrouting    masquerading            meta mark & 0x4000 == 0x0 return                                          -> return: the endpoint sees the client's address
    to LoadBalancer 5.6.7.8:80 from a client outside the cluster, source not allowed: dropped: source not in loadBalancerSourceRanges
      filter prerouting  filter-prerouting  jump firewall-check                                                       -> jump firewall-check
                         firewall-check     ip daddr . meta l4proto .... th dport . ip saddr != @firewall-allow drop  -> drop: source in none of 203.0.113.0/24
`;
