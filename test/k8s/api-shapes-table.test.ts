// The shape check's table of model field types (src/k8s/generated/api-shapes.ts) is what the installed
// client-node's models give, and covers every resource the watchers decode.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { API_SHAPES } from '../../src/k8s/generated/api-shapes';
import { decodeObject } from '../../src/k8s/resources';
import { shapeProblem } from '../../src/k8s/shape-check';
import { REGENERATE, reachableModels, renderInstalled, ROOT_MODELS, TABLE_PATH } from '../../scripts/generate-api-shapes';
import { REPO_ROOT } from '../helpers/topology';

describe('api-shapes table', () => {
  it('is what the installed client-node renders', () => {
    const committed = fs.readFileSync(path.join(REPO_ROOT, TABLE_PATH), 'utf8');
    assert.ok(committed === renderInstalled(), `${TABLE_PATH} differs from the installed @kubernetes/client-node's models: run \`${REGENERATE}\` and commit the result`);
  });

  it('holds every model reachable from the watched resources\' types, with the models\' own field order', async () => {
    const models = (await import('@kubernetes/client-node')) as unknown as Record<string, { getAttributeTypeMap(): { baseName: string; type: string }[] }>;
    const reached = reachableModels(models);
    assert.deepEqual(Object.keys(API_SHAPES), [...reached.keys()]);
    for (const root of ROOT_MODELS) assert.ok(root in API_SHAPES, root);
    assert.deepEqual(Object.entries(API_SHAPES.V1ServicePort), models.V1ServicePort.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
    assert.equal(API_SHAPES.V1ServiceSpec.sessionAffinityConfig, 'V1SessionAffinityConfig');
    assert.throws(() => reachableModels(models, ['NoSuchModel']), /NoSuchModel is not a client-node model class/);
  });

  it('covers every resource the watchers decode, and refuses to check against a model it lacks', () => {
    for (const r of ['services', 'endpointSlices', 'nodes', 'namespaces', 'serviceCIDRs'] as const) {
      assert.doesNotThrow(() => decodeObject(r, { metadata: { name: 'x', namespace: 'y' } }), r);
    }
    assert.throws(() => shapeProblem({}, 'V1Pod'), /shape check: no model "V1Pod" in src\/k8s\/generated\/api-shapes\.ts/);
  });
});
