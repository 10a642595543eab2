// A list is read page by page with the next page's request already out while this page's objects
// are handled, so the API server prepares it in parallel with the model's work.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { Reflector } from '../../src/k8s/reflector';
import { decodeObject, type ListOptions, type ResourceClient } from '../../src/k8s/resources';
import { realSlice } from './realistic-objects';
import { waitFor } from './helpers';

const slice = (name: string) => {
  const s = realSlice('web', 'frontend', name, 'IPv4', [{ name: 'http', port: 8080, protocol: 'TCP' }], [{ ip: '10.244.1.1', node: 'node-a' }]);
  (s.metadata as { resourceVersion: string }).resourceVersion = '5';
  return s;
};

/** Three pages of one slice each; `log` records requests and handled objects in order. */
function pagedClient(log: string[], failPage?: number): ResourceClient<V1EndpointSlice> {
  return {
    name: 'endpointslices',
    list: async (o: ListOptions) => {
      const page = Number(o.continueToken ?? '0');
      log.push(`request page ${page}`);
      await new Promise((r) => setTimeout(r, 5));
      if (page === failPage) throw Object.assign(new Error('the continue token expired'), { statusCode: 410 });
      return { items: [decodeObject('endpointSlices', slice(`p${page}`))], resourceVersion: '5', rejected: [], continueToken: page < 2 ? String(page + 1) : undefined };
    },
    watch: () => {
      let abort = (): void => undefined;
      return { done: new Promise<'aborted'>((resolve) => (abort = () => resolve('aborted'))), abort: () => abort() };
    },
    fromJSON: (raw: unknown) => decodeObject('endpointSlices', raw),
  } as unknown as ResourceClient<V1EndpointSlice>;
}

describe('Reflector pages', () => {
  it('asks for the next page before handling this one', async () => {
    const log: string[] = [];
    const r = new Reflector<V1EndpointSlice>({
      client: pagedClient(log),
      handler: { add: (o) => log.push(`handle ${o.metadata?.name}`), update: () => undefined, delete: () => undefined },
    });
    r.start();
    try {
      await waitFor('listed', () => log.filter((l) => l.startsWith('handle')).length === 3);
      assert.deepEqual(log, [
        'request page 0', 'request page 1', 'handle frontend-p0', 'request page 2', 'handle frontend-p1', 'handle frontend-p2',
      ]);
    } finally {
      r.stop();
    }
  });

  it('a page that fails mid-list fails the list: no object of a later page, and the list is retried', async () => {
    const log: string[] = [];
    const r = new Reflector<V1EndpointSlice>({
      client: pagedClient(log, 1),
      handler: { add: (o) => log.push(`handle ${o.metadata?.name}`), update: () => undefined, delete: () => undefined },
      backoff: { initialMs: 10, maxMs: 10, factor: 1, jitter: 0 },
    });
    r.start();
    try {
      await waitFor('retried', () => log.filter((l) => l === 'request page 0').length >= 2);
      assert.equal(log.includes('handle frontend-p2'), false);
      assert.equal(log.includes('request page 2'), false);
    } finally {
      r.stop();
    }
  });
});
