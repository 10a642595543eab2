import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { endpointRecord, sharedName, sharedNameList } from '../../src/core/endpoint-record';
import { gcFunction } from '../helpers/gc';

function gc(): void {
  gcFunction()();
}

const core = { ip: '10.0.0.1', ready: true, serving: true, terminating: false, isLocal: false };

describe('endpointRecord', () => {
  it('keeps absent names absent, with or without a port', () => {
    assert.deepEqual(endpointRecord(core, undefined), core);
    assert.deepEqual(endpointRecord(core, 80), { ...core, port: 80 });
    assert.deepEqual(endpointRecord({ ...core, zone: 'z1' }, 80), { ...core, port: 80, zone: 'z1' });
    assert.deepEqual(endpointRecord({ ...core, nodeName: 'n1' }, undefined), { ...core, nodeName: 'n1' });
    assert.deepEqual(endpointRecord({ ...core, nodeName: 'n1', zone: 'z1' }, 8080), { ...core, port: 8080, nodeName: 'n1', zone: 'z1' });
    assert.equal('nodeName' in endpointRecord({ ...core, nodeName: undefined }, 80), false);
  });

  it('shares one copy of each node and zone name', () => {
    // Built at run time, so the two texts are distinct string objects with equal contents.
    const a = ['node', String(7)].join('-');
    const b = `node-${7}`;
    assert.equal(sharedName(a), sharedName(b));
    const e1 = endpointRecord({ ...core, nodeName: a }, 80);
    const e2 = endpointRecord({ ...core, ip: '10.0.0.2', nodeName: b }, 80);
    assert.equal(e1.nodeName, 'node-7');
    assert.ok(Object.is(sharedName(b), sharedName(a)));
    assert.equal(e2.nodeName, e1.nodeName);
  });

  it('costs no more than the object itself per endpoint: names shared, no separate property store', () => {
    const n = 100_000;
    const ip = '10.1.2.3';
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept: unknown[] = new Array(n);
    for (let i = 0; i < n; i++) {
      // A new string per endpoint, as JSON.parse gives: 40 characters, 20 nodes.
      const nodeName = `node-${i % 20}-`.padEnd(40, 'x');
      kept[i] = endpointRecord({ ip, ready: true, serving: true, terminating: false, isLocal: false, nodeName, zone: `zone-${i % 3}` }, 8080);
    }
    gc();
    const perEndpoint = (process.memoryUsage().heapUsed - before) / n;
    // The object (8 fields: 88 bytes with 64-bit pointers) and its slot in `kept`, ~98 in all; an own
    // copy of the node name adds ~160 bytes (measured: 256), names added after the literal ~200 (304).
    assert.ok(perEndpoint < 150, `${perEndpoint.toFixed(1)} bytes per endpoint`);
    assert.equal(kept.length, n);
  });

  it('shares one frozen copy of each hint list', () => {
    const a = sharedNameList(['zone-a', 'zone-b']);
    assert.equal(sharedNameList(['zone-a', 'zone-b']), a);
    assert.notEqual(sharedNameList(['zone-a']), a);
    assert.notEqual(sharedNameList(['zone-a,zone-b']), sharedNameList(['zone-a', 'zone-b']));
    assert.deepEqual(a, ['zone-a', 'zone-b']);
    assert.ok(Object.isFrozen(a));
  });
});
