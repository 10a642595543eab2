// The varied Services and EndpointSlices kept-fields.test.ts decodes both ways: every feature the
// model reads (dual-stack, LoadBalancer, source ranges, affinity, Local policies, traffic
// distribution, topology hints, terminating endpoints) and input it warns about.
import { realService, realSlice } from './realistic-objects';

type Case = [string, Record<string, unknown>];

const http = { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, appProtocol: 'http' };
const dns = [{ name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 }, { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 }];
const v4 = (ip: string) => ({ clusterIP: ip, clusterIPs: [ip], ipFamilies: ['IPv4'] });

export const SERVICES: Case[] = [
  ['ClusterIP', realService('web', 'frontend', { ...v4('10.96.0.10'), ports: [http] })],
  ['dual-stack, two protocols', realService('kube-system', 'kube-dns', {
    clusterIP: '10.96.0.53', clusterIPs: ['10.96.0.53', 'fd00:10:96::53'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack', ports: dns,
  })],
  ['IPv6 first', realService('web', 'v6first', {
    clusterIP: 'fd00:10:96::7', clusterIPs: ['fd00:10:96::7', '10.96.0.7'], ipFamilies: ['IPv6', 'IPv4'], ipFamilyPolicy: 'PreferDualStack', ports: [http],
  })],
  ['LoadBalancer, Local, source ranges in spec', realService('shop', 'checkout', {
    ...v4('10.96.1.1'), type: 'LoadBalancer', ports: [{ ...http, nodePort: 30080 }], externalTrafficPolicy: 'Local', healthCheckNodePort: 32000,
    loadBalancerSourceRanges: [' 203.0.113.0/24', '2001:db8::/32 ', 'garbage'], allocateLoadBalancerNodePorts: true, loadBalancerClass: 'service.k8s.aws/nlb',
  }, { status: {
    loadBalancer: { ingress: [{ ip: '198.51.100.7', ipMode: 'VIP' }, { ip: '198.51.100.8', ipMode: 'Proxy' }, { hostname: 'lb.example.com' }, { ip: '2001:db8::7' }] },
    conditions: [{ type: 'LoadBalancerReady', status: 'True', lastTransitionTime: '2025-11-03T09:15:00Z', reason: 'Provisioned', message: 'ok' }],
  } })],
  ['LoadBalancer, source ranges in the legacy annotation', realService('shop', 'legacy', {
    ...v4('10.96.1.2'), type: 'LoadBalancer', ports: [{ ...http, nodePort: 30081 }], externalTrafficPolicy: 'Cluster',
  }, { annotations: { 'service.beta.kubernetes.io/load-balancer-source-ranges': '192.0.2.0/24, 198.51.100.0/25', 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' },
    status: { loadBalancer: { ingress: [{ ip: '192.0.2.200' }] } } })],
  ['LoadBalancer, Local, no health check port', realService('shop', 'nohc', {
    ...v4('10.96.1.3'), type: 'LoadBalancer', ports: [{ ...http, nodePort: 30082 }], externalTrafficPolicy: 'Local',
  })],
  ['ClientIP affinity, with and without a timeout', realService('app', 'sticky', {
    ...v4('10.96.2.1'), ports: [http], sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
  })],
  ['ClientIP affinity, default timeout', realService('app', 'sticky-default', { ...v4('10.96.2.2'), ports: [http], sessionAffinity: 'ClientIP' })],
  ['ClientIP affinity, timeout out of range', realService('app', 'sticky-bad', {
    ...v4('10.96.2.3'), ports: [http], sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 999999 } },
  })],
  ['internal Local, PreferClose', realService('app', 'local', {
    ...v4('10.96.3.1'), ports: [http], internalTrafficPolicy: 'Local', trafficDistribution: 'PreferClose',
  })],
  ['NodePort with external IPs, Local', realService('app', 'edge', {
    ...v4('10.96.4.1'), type: 'NodePort', ports: [{ ...http, nodePort: 31000 }, { name: 'https', port: 443, protocol: 'TCP', targetPort: 8443, nodePort: 31001 }],
    externalIPs: ['192.0.2.10', '2001:db8::10', 'not-an-ip'], externalTrafficPolicy: 'Local',
  })],
  ['ClusterIP with external IPs (externally accessible)', realService('app', 'extip', {
    ...v4('10.96.4.2'), ports: [http], externalIPs: ['192.0.2.11'], externalTrafficPolicy: 'Local',
  })],
  ['SCTP and an unnamed port', realService('telco', 'sctp', { ...v4('10.96.5.1'), ports: [{ port: 3868, protocol: 'SCTP', targetPort: 3868 }] })],
  ['ExternalName', realService('app', 'ext', { type: 'ExternalName', externalName: 'db.example.com', ports: [http] })],
  ['headless', realService('app', 'headless', { clusterIP: 'None', clusterIPs: ['None'], ipFamilies: ['IPv4'], ports: [http] })],
  ['no ipFamilies (an old object)', realService('app', 'old', { clusterIP: '10.96.6.1', ports: [http] })],
  ['broken ports: null, unknown protocol, out of range, duplicate', realService('app', 'broken', {
    ...v4('10.96.7.1'), ports: [null, { name: 'a', port: 80, protocol: 'QUIC' }, { name: 'b', port: 70000 }, { name: 'c', port: 81, nodePort: 99999 }, { name: 'd', port: 82 }, { name: 'd', port: 83 }],
  })],
  ['no ports', realService('app', 'portless', { ...v4('10.96.7.2'), ports: [] })],
  ['null spec fields', realService('app', 'nulls', { ...v4('10.96.7.3'), ports: [http], externalIPs: null, sessionAffinityConfig: null, ipFamilies: ['IPv4', 'IPv5'] })],
  ['cluster IP of the wrong family', realService('app', 'wrongfam', { clusterIP: '10.96.7.4', clusterIPs: ['10.96.7.4', '10.96.7.5'], ipFamilies: ['IPv4', 'IPv6'], ports: [http] })],
];

const webPorts = [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'http' }];
const ready = { ready: true, serving: true, terminating: false };
const terminatingServing = { ready: false, serving: true, terminating: true };
const terminatingGone = { ready: false, serving: false, terminating: true };
const zones = (...z: string[]) => ({ forZones: z.map((name) => ({ name })) });

export const SLICES: Case[] = [
  ['IPv4, local and remote, hints for zones and nodes', realSlice('web', 'frontend', 'x7k2p', 'IPv4', webPorts, [
    { ip: '10.244.1.10', node: 'node-a', zone: 'z1', hints: zones('z1') },
    { ip: '10.244.2.10', node: 'node-b', zone: 'z2', hints: { ...zones('z2', 'z1'), forNodes: [{ name: 'node-b' }] } },
    { ip: '10.244.3.10', node: 'node-c', zone: 'z3', hints: zones('z3') },
  ])],
  ['terminating endpoints, serving and not', realSlice('web', 'frontend', 'q9w8e', 'IPv4', webPorts, [
    { ip: '10.244.1.11', node: 'node-a', conditions: terminatingServing },
    { ip: '10.244.2.11', node: 'node-b', conditions: terminatingGone },
    { ip: '10.244.2.12', node: 'node-b', conditions: { ready: false } },
    { ip: '10.244.2.13', node: 'node-b', conditions: null },
    { ip: '10.244.2.14', node: 'node-b', conditions: {} },
  ])],
  ['dual-stack Service: IPv4 slice with two ports', realSlice('kube-system', 'kube-dns', 'v4a', 'IPv4',
    [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }],
    [{ ip: '10.244.1.2', node: 'node-a', conditions: ready }, { ip: '10.244.2.2', node: 'node-b', conditions: ready }])],
  ['dual-stack Service: IPv6 slice', realSlice('kube-system', 'kube-dns', 'v6a', 'IPv6',
    [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }],
    [{ ip: 'fd00:10:244:1::2', node: 'node-a' }, { ip: 'fd00:10:244:2::2', node: 'node-b' }])],
  ['LoadBalancer Local', realSlice('shop', 'checkout', 'lb1', 'IPv4', webPorts, [
    { ip: '10.244.1.20', node: 'node-a' }, { ip: '10.244.2.20', node: 'node-b' },
  ])],
  ['affinity', realSlice('app', 'sticky', 's1', 'IPv4', webPorts, [{ ip: '10.244.1.30', node: 'node-a' }, { ip: '10.244.2.30', node: 'node-b' }])],
  ['internal Local', realSlice('app', 'local', 'l1', 'IPv4', webPorts, [{ ip: '10.244.1.40', node: 'node-a', zone: 'z1' }, { ip: '10.244.2.40', node: 'node-b', zone: 'z2' }])],
  ['edge, two ports', realSlice('app', 'edge', 'e1', 'IPv4', [...webPorts, { name: 'https', port: 8443, protocol: 'TCP' }], [{ ip: '10.244.1.50', node: 'node-a' }])],
  ['bad entries: wrong family, duplicate, no address, bad port', realSlice('app', 'broken', 'b1', 'IPv4',
    [{ name: 'a', port: 0 }, { name: 'b', port: 8080, protocol: 'QUIC' }, null, { name: 'c', port: 8081 }],
    [{ ip: 'fd00::1' }, { ip: '10.244.9.1' }, { ip: '10.244.9.1' }, { ip: '' }])],
  ['unparseable trigger time', realSlice('app', 'sticky', 's2', 'IPv4', webPorts, [{ ip: '10.244.3.30', node: 'node-c' }],
    { 'endpoints.kubernetes.io/last-change-trigger-time': 'yesterday' })],
  ['FQDN', realSlice('app', 'ext', 'f1', 'FQDN', webPorts, [{ ip: 'db.example.com' }])],
  ['unknown address type', realSlice('app', 'ext', 'f2', 'IPX', webPorts, [{ ip: '10.244.1.99' }])],
];

/** A slice without the service-name label (the model skips it with a warning). */
const unlabelled = realSlice('app', 'orphan', 'o1', 'IPv4', webPorts, [{ ip: '10.244.1.60' }]);
delete (unlabelled.metadata as { labels: Record<string, string> }).labels['kubernetes.io/service-name'];
SLICES.push(['no service-name label', unlabelled]);
