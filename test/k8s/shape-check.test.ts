import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shapeProblem } from '../../src/k8s/shape-check';

test('names the first field whose shape does not fit the model type', () => {
  const svc = (spec: unknown) => ({ metadata: { name: 'a', namespace: 'b', labels: { x: 'y' } }, spec });
  assert.equal(shapeProblem(svc({ clusterIP: '10.0.0.1', ports: [{ port: 80, targetPort: 'http' }] }), 'V1Service'), null);
  assert.equal(shapeProblem(svc({ ports: [{ port: '80' }] }), 'V1Service'), 'spec.ports[0].port: expected a number, got a string');
  assert.equal(shapeProblem(svc({ ports: 'http' }), 'V1Service'), 'spec.ports: expected a list, got a string');
  assert.equal(shapeProblem(svc('x'), 'V1Service'), 'spec: expected an object, got a string');
  assert.equal(shapeProblem(svc({ sessionAffinityConfig: { clientIP: { timeoutSeconds: true } } }), 'V1Service'),
    'spec.sessionAffinityConfig.clientIP.timeoutSeconds: expected a number, got a boolean');
  assert.equal(shapeProblem({ metadata: { labels: { a: 1 } } }, 'V1Service'), 'metadata.labels["a"]: expected a string, got a number');
  assert.equal(shapeProblem({ metadata: { labels: [] } }, 'V1Service'), 'metadata.labels: expected a map, got a list');
  assert.equal(shapeProblem('svc', 'V1Service'), '(object): expected an object, got a string');
  // Absent and null fields are the model's business (it has defaults for them).
  assert.equal(shapeProblem({ metadata: null, spec: { ports: [null] } }, 'V1Service'), null);
  assert.equal(shapeProblem({ endpoints: [{ conditions: { ready: 'yes' } }] }, 'V1EndpointSlice'), 'endpoints[0].conditions.ready: expected a boolean, got a string');
});

test('checks an object the same however it was made', () => {
  // Fields the model does not have are not checked, whatever their shape.
  assert.equal(shapeProblem({ metadata: { name: 'a', surprise: 42 }, spec: { ports: [{ port: 80, extra: [] }] }, surprise: 7 }, 'V1Service'), null);
  // The first field in the model's order is named, whatever order the object lists its fields in.
  assert.equal(shapeProblem({ spec: { ports: [{ port: '80' }], clusterIP: 1 } }, 'V1Service'), 'spec.clusterIP: expected a string, got a number');
  // Objects not parsed from JSON: no prototype, a class whose field is a getter on its prototype.
  const bare = Object.assign(Object.create(null) as Record<string, unknown>, { spec: { type: 5 } });
  assert.equal(shapeProblem(bare, 'V1Service'), 'spec.type: expected a string, got a number');
  class Spec { get type(): unknown { return ['ClusterIP']; } }
  assert.equal(shapeProblem({ spec: new Spec() }, 'V1Service'), 'spec.type: expected a string, got a list');
  assert.equal(shapeProblem({ spec: Object.assign(new Spec(), { clusterIP: '10.0.0.1' }) }, 'V1Service'), 'spec.type: expected a string, got a list');
  // Deep in a list of models, in a map's values, in a list of strings.
  const slice = (endpoints: unknown) => ({ addressType: 'IPv4', endpoints });
  assert.equal(shapeProblem(slice([{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2', 3] }]), 'V1EndpointSlice'), 'endpoints[1].addresses[1]: expected a string, got a number');
  assert.equal(shapeProblem(slice([{ addresses: ['10.0.0.1'], deprecatedTopology: { zone: 'a', rack: false } }]), 'V1EndpointSlice'),
    'endpoints[0].deprecatedTopology["rack"]: expected a string, got a boolean');
  assert.equal(shapeProblem(slice([{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'a' }] } }]), 'V1EndpointSlice'), null);
  assert.equal(shapeProblem(JSON.parse('{"metadata":{"__proto__":{"name":1}}}'), 'V1Service'), null);
});
