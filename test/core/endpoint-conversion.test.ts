import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSlices, parseEndpointSlice, sliceTriggerTime, TRIGGER_TIME_ANNOTATION } from '../../src/core/endpoint-conversion';
import { recordingLogger, slice, sliceEndpoint } from './fixtures';

test('conditions default as upstream when nil: ready true, serving true, terminating false', () => {
  const p = parseEndpointSlice(slice('s1', 'web', [{ addresses: ['10.0.0.1'] }]), 'node-a', recordingLogger());
  assert.deepEqual(p?.endpoints, [{ ip: '10.0.0.1', port: 8080, ready: true, serving: true, terminating: false, isLocal: false }]);
  const q = parseEndpointSlice(slice('s1', 'web', [{ addresses: ['10.0.0.1'], conditions: { ready: false, terminating: true } }]), 'node-a', recordingLogger());
  assert.deepEqual(q?.endpoints[0], { ip: '10.0.0.1', port: 8080, ready: false, serving: true, terminating: true, isLocal: false });
});

test("a slice's endpoints carry its first port and are that port's merged objects; further ports get copies", () => {
  const log = recordingLogger();
  const one = parseEndpointSlice(slice('s1', 'web', [{ addresses: ['10.0.0.1'] }]), 'node-a', log)!;
  assert.equal([...mergeSlices([one]).values()][0][0], one.endpoints[0]);
  const two = parseEndpointSlice(slice('s2', 'web', [{ addresses: ['10.0.0.1'] }], {
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP' }],
  }), 'node-a', log)!;
  assert.deepEqual(two.endpoints, [{ ip: '10.0.0.1', port: 8080, ready: true, serving: true, terminating: false, isLocal: false }]);
  const merged = mergeSlices([two]);
  assert.equal(merged.get('ns/web:http/TCP/IPv4')![0], two.endpoints[0]);
  const dns = merged.get('ns/web:dns/UDP/IPv4')![0];
  assert.notEqual(dns, two.endpoints[0]);
  assert.deepEqual(dns, { ...two.endpoints[0], port: 53 });
  const none = parseEndpointSlice(slice('s3', 'web', [{ addresses: ['10.0.0.1'] }], { ports: [] }), 'node-a', log)!;
  assert.equal(none.endpoints[0].port, undefined);
  assert.equal(mergeSlices([none]).size, 0);
});

test('nodeName decides isLocal; zone and hints are kept sorted and deduplicated', () => {
  const p = parseEndpointSlice(slice('s1', 'web', [
    sliceEndpoint('10.0.0.1', { nodeName: 'node-a', zone: 'zone-a', hints: { forZones: [{ name: 'zone-b' }, { name: 'zone-a' }, { name: 'zone-a' }], forNodes: [{ name: 'node-a' }] } }),
    sliceEndpoint('10.0.0.2', { nodeName: 'node-b' }),
  ]), 'node-a', recordingLogger());
  assert.deepEqual(p?.endpoints, [
    { ip: '10.0.0.1', port: 8080, ready: true, serving: true, terminating: false, isLocal: true, nodeName: 'node-a', zone: 'zone-a', zoneHints: ['zone-a', 'zone-b'], nodeHints: ['node-a'] },
    { ip: '10.0.0.2', port: 8080, ready: true, serving: true, terminating: false, isLocal: false, nodeName: 'node-b' },
  ]);
});

test('bad endpoints are skipped with a log line naming the slice and the endpoint', () => {
  const log = recordingLogger();
  const p = parseEndpointSlice(slice('s1', 'web', [
    sliceEndpoint('10.0.0.1'),
    sliceEndpoint('fd00::1'),
    sliceEndpoint('10.0.0.300'),
    { addresses: [] },
    sliceEndpoint('10.0.0.1'),
    sliceEndpoint('10.0.0.2'),
  ]), 'node-a', log);
  assert.deepEqual(p?.endpoints.map((e) => e.ip), ['10.0.0.1', '10.0.0.2']);
  assert.deepEqual(log.lines.map((l) => [l.obj.kind, l.obj.name, l.obj.field]), [
    ['EndpointSlice', 's1', 'endpoints[1]'],
    ['EndpointSlice', 's1', 'endpoints[2]'],
    ['EndpointSlice', 's1', 'endpoints[3]'],
    ['EndpointSlice', 's1', 'endpoints[4]'],
  ]);
  assert.match(log.lines[3].msg, /duplicate/);
});

test('bad ports are skipped; a missing name means the unnamed port; protocol defaults to TCP', () => {
  const log = recordingLogger();
  const p = parseEndpointSlice(slice('s1', 'web', [sliceEndpoint('10.0.0.1')], {
    ports: [{ port: 8080 }, { name: 'x', port: 0 }, { name: 'y', protocol: 'ICMP', port: 1 }, { name: 'z' }],
  }), 'node-a', log);
  assert.deepEqual(p?.ports, [{ portName: '', protocol: 'TCP', port: 8080 }]);
  assert.deepEqual(log.lines.map((l) => l.obj.field), ['ports[1]', 'ports[2]', 'ports[3]']);
});

test('FQDN slices are ignored quietly, unknown address types and unlabeled slices with a log line', () => {
  const log = recordingLogger();
  assert.equal(parseEndpointSlice(slice('f', 'web', [], { addressType: 'FQDN' }), 'n', log), undefined);
  assert.equal(log.lines.length, 0);
  assert.equal(parseEndpointSlice(slice('q', 'web', [], { addressType: 'IPv5' }), 'n', log), undefined);
  const unlabeled = slice('u', 'web', []);
  unlabeled.metadata!.labels = {};
  assert.equal(parseEndpointSlice(unlabeled, 'n', log), undefined);
  assert.deepEqual(log.lines.map((l) => l.obj.name), ['q', 'u']);
  assert.match(log.lines[1].msg, /kubernetes\.io\/service-name/);
});

test('trigger time annotation is parsed; garbage is logged and ignored', () => {
  const log = recordingLogger();
  const ok = sliceTriggerTime(slice('s', 'web', [], { annotations: { [TRIGGER_TIME_ANNOTATION]: '2026-11-26T04:00:00Z' } }), log);
  assert.equal(ok?.toISOString(), '2026-11-26T04:00:00.000Z');
  assert.equal(sliceTriggerTime(slice('s', 'web', [], { annotations: { [TRIGGER_TIME_ANNOTATION]: 'yesterday-ish' } }), log), undefined);
  assert.equal(sliceTriggerTime(slice('s', 'web', []), log), undefined);
  assert.equal(log.lines.length, 1);
  assert.equal(log.lines[0].obj.name, 's');
});

test('mergeSlices: slices of one Service merge per port name, protocol and family, sorted', () => {
  const log = recordingLogger();
  const a = parseEndpointSlice(slice('web-a', 'web', [sliceEndpoint('10.0.0.2'), sliceEndpoint('10.0.0.1')], {
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP' }],
  }), 'n', log)!;
  const b = parseEndpointSlice(slice('web-b', 'web', [sliceEndpoint('10.0.0.3')], { ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }), 'n', log)!;
  const c = parseEndpointSlice(slice('web-c', 'web', [sliceEndpoint('fd00::1')], { addressType: 'IPv6', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }), 'n', log)!;
  const m = mergeSlices([b, c, a]);
  assert.deepEqual([...m.keys()].sort(), ['ns/web:dns/UDP/IPv4', 'ns/web:http/TCP/IPv4', 'ns/web:http/TCP/IPv6']);
  assert.deepEqual(m.get('ns/web:http/TCP/IPv4')!.map((e) => `${e.ip}:${e.port}`), ['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080']);
  assert.deepEqual(m.get('ns/web:dns/UDP/IPv4')!.map((e) => `${e.ip}:${e.port}`), ['10.0.0.1:53', '10.0.0.2:53']);
  assert.deepEqual(m.get('ns/web:http/TCP/IPv6')!.map((e) => e.ip), ['fd00::1']);
  assert.equal(log.lines.length, 0);
});

test('mergeSlices: an endpoint in two slices appears once, preferring the local and ready copy', () => {
  const log = recordingLogger();
  const old = parseEndpointSlice(slice('a', 'web', [sliceEndpoint('10.0.0.1', { conditions: { ready: false } })]), 'node-a', log)!;
  const moved = parseEndpointSlice(slice('b', 'web', [sliceEndpoint('10.0.0.1', { nodeName: 'node-a' })]), 'node-a', log)!;
  for (const order of [[old, moved], [moved, old]]) {
    const eps = mergeSlices(order).get('ns/web:http/TCP/IPv4')!;
    assert.equal(eps.length, 1);
    assert.equal(eps[0].isLocal, true);
    assert.equal(eps[0].ready, true);
  }
});

test('mergeSlices: a port with no endpoints yields no entry', () => {
  const p = parseEndpointSlice(slice('a', 'web', []), 'n', recordingLogger())!;
  assert.equal(mergeSlices([p]).size, 0);
});

test('shapes the types do not allow cost a warning naming the slice, never an exception', () => {
  const broken: [string, (s: any) => void, number][] = [
    ['endpoints not a list', (s) => { s.endpoints = 'pod0'; }, 0],
    ['a null endpoint', (s) => { s.endpoints = [null, ...s.endpoints]; }, 1],
    ['addresses not a list', (s) => { s.endpoints[0].addresses = '10.0.0.1'; }, 0],
    ['an address that is a number', (s) => { s.endpoints[0].addresses = [10]; }, 0],
    ['conditions a string', (s) => { s.endpoints[0].conditions = 'ready'; }, 1],
    ['hints garbage', (s) => { s.endpoints[0].hints = { forZones: [null, 5, { name: 7 }, { name: 'z' }] }; }, 1],
    ['a null port', (s) => { s.ports = [null]; }, 1],
  ];
  for (const [what, breakIt, endpoints] of broken) {
    const s: any = slice('s1', 'web', [sliceEndpoint('10.0.0.1')]);
    breakIt(s);
    const log = recordingLogger();
    let p: ReturnType<typeof parseEndpointSlice>;
    assert.doesNotThrow(() => { p = parseEndpointSlice(s, 'node-a', log); }, what);
    assert.equal(p!.endpoints.length, endpoints, what);
    if (endpoints === 0 || what.includes('null')) assert.match(JSON.stringify(log.lines), /s1/, what);
  }
});

test("a Service's one slice gives its first port's merged list as the slice's own list, sorted as merged lists are", () => {
  const log = recordingLogger();
  const one = parseEndpointSlice(slice('s1', 'web', [sliceEndpoint('10.0.0.10'), sliceEndpoint('10.0.0.2'), sliceEndpoint('10.0.0.1')], {
    ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP' }],
  }), 'n', log)!;
  const merged = mergeSlices([one]);
  const http = merged.get('ns/web:http/TCP/IPv4')!;
  assert.equal(http, one.endpoints);
  assert.deepEqual(http.map((ep) => ep.ip), ['10.0.0.10', '10.0.0.1', '10.0.0.2']);
  const dns = merged.get('ns/web:dns/UDP/IPv4')!;
  assert.notEqual(dns, one.endpoints);
  assert.deepEqual(dns.map((ep) => `${ep.ip}:${ep.port}`), ['10.0.0.10:53', '10.0.0.1:53', '10.0.0.2:53']);
  const other = parseEndpointSlice(slice('s2', 'web', [sliceEndpoint('10.0.0.3')], { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }), 'n', log)!;
  const both = mergeSlices([one, other]).get('ns/web:http/TCP/IPv4')!;
  assert.notEqual(both, one.endpoints);
  assert.deepEqual(both.map((ep) => ep.ip), ['10.0.0.10', '10.0.0.1', '10.0.0.2', '10.0.0.3']);
});
