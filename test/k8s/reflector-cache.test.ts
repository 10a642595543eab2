// The Reflector's cache keeps an object's metadata only (the model holds its own parsed form): what it
// keeps is enough for the deletes it infers, which the model applies exactly like a watch's DELETED.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject, V1EndpointSlice } from '@kubernetes/client-node';
import { ProxyState } from '../../src/core/proxy-state';
import { Reflector } from '../../src/k8s/reflector';
import { decodeObject, type ResourceClient } from '../../src/k8s/resources';
import { recordingLogger, service } from '../core/fixtures';
import { realSlice } from './realistic-objects';
import { waitFor } from './helpers';

/** Lists whatever `items` holds now; its watches stay open and empty until aborted. */
function listClient(items: () => unknown[]): ResourceClient<V1EndpointSlice> & { lists: number } {
  const c = {
    name: 'endpointslices',
    lists: 0,
    list: async () => {
      c.lists++;
      return { items: items().map((r) => decodeObject('endpointSlices', r)), resourceVersion: String(c.lists), rejected: [] };
    },
    watch: () => {
      let abort = (): void => undefined;
      return { done: new Promise<'aborted'>((resolve) => (abort = () => resolve('aborted'))), abort: () => abort() };
    },
    fromJSON: (raw: unknown) => decodeObject('endpointSlices', raw),
  };
  return c;
}

const slice = (name: string, rv: string) => {
  const s = realSlice('web', 'frontend', name, 'IPv4', [{ name: 'http', port: 8080, protocol: 'TCP' }], [{ ip: `10.244.1.${name.length}`, node: 'node-a' }]);
  (s.metadata as { resourceVersion: string }).resourceVersion = rv;
  return s;
};

describe('Reflector cache', () => {
  it('keeps metadata only; a delete it infers carries the key, version and kept labels', async () => {
    let listed = [slice('a', '10'), slice('bb', '11')];
    const client = listClient(() => listed);
    const events: Array<[string, KubernetesObject]> = [];
    const r = new Reflector<V1EndpointSlice>({
      client,
      handler: { add: (o) => events.push(['add', o]), update: (o) => events.push(['update', o]), delete: (o) => events.push(['delete', o]) },
    });
    r.start();
    try {
      await waitFor('listed', () => events.length === 2);
      assert.equal((events[0][1] as V1EndpointSlice).endpoints?.length, 1, 'the handler gets the kept object, endpoints and all');
      const seen: KubernetesObject[] = [];
      r.drop((o) => (seen.push(o), false));
      assert.deepEqual(seen, [
        { metadata: { name: 'frontend-a', resourceVersion: '10', namespace: 'web', labels: { 'kubernetes.io/service-name': 'frontend' } } },
        { metadata: { name: 'frontend-bb', resourceVersion: '11', namespace: 'web', labels: { 'kubernetes.io/service-name': 'frontend' } } },
      ]);
      listed = [slice('a', '12')];
      r.relistNow();
      await waitFor('relisted', () => events.length === 4);
      // A relist hands each page on as it arrives, then deletes what it did not show.
      assert.deepEqual(events.slice(2).map(([k, o]) => `${k} ${o.metadata?.name}`), ['update frontend-a', 'delete frontend-bb']);
      assert.deepEqual(events[3][1], seen[1]);
    } finally {
      r.stop();
    }
  });

  it('the model applies an inferred delete (metadata only) as it applies the whole object, without a warning', () => {
    const whole = decodeObject('endpointSlices', slice('a', '10'));
    // What cacheEntry keeps; typed as a slice, as the Reflector hands it on (the sink's contract: a delete's object may be metadata only).
    const entry = { metadata: { name: whole.metadata!.name, namespace: 'web', resourceVersion: '10', labels: whole.metadata!.labels } } as V1EndpointSlice;
    const run = (deleted: V1EndpointSlice) => {
      const log = recordingLogger();
      const state = new ProxyState({ nodeName: 'node-a', ipFamilies: ['IPv4'], log });
      state.onService('add', service('frontend', {}, { namespace: 'web' }));
      state.onEndpointSlice('add', whole);
      state.takeChanges();
      assert.equal(state.onEndpointSlice('delete', deleted), true);
      return { taken: state.takeChanges().changes, warnings: log.lines };
    };
    const fromEntry = run(entry);
    assert.deepEqual(fromEntry, run(whole));
    assert.deepEqual(fromEntry.warnings, []);
    assert.deepEqual([...fromEntry.taken.services], ['web/frontend:http/TCP/IPv4']);
    assert.deepEqual([...fromEntry.taken.removedEndpoints.values()].flat().map((e) => e.ip), ['10.244.1.1']);
  });
});
