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
