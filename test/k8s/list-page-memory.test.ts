// A list page's raw objects (JSON.parse's, megabytes a page) can be collected one by one as they are
// decoded, not only once the whole page is: held to the page's end, they outlived two scavenges and
// were promoted to V8's old generation, where at 44k Services they piled up as ~110 MiB of RSS before
// the first full sync's GC (docs/memory.md, "The list's garbage").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiConnection } from '../../src/k8s/api-request';
import { resourceClients } from '../../src/k8s/resources';
import { realService } from './realistic-objects';
import { gcFunction } from '../helpers/gc';

const ITEMS = 50;

test('a list page: each raw object can be collected once it is decoded, before the page ends', async () => {
  const gc = gcFunction();
  const items: Array<Record<string, unknown>> = [];
  for (let i = 0; i < ITEMS; i++) items.push(realService('default', `svc-${i}`, { clusterIP: `10.96.0.${i + 1}`, ports: [{ port: 80, protocol: 'TCP' }] }) as Record<string, unknown>);
  const refs = items.map((o) => new WeakRef(o));
  // The last object's metadata is read by the decoding: a GC then finds which of the others are still held.
  let collectedAtLast = -1;
  const last = items[ITEMS - 1];
  const metadata = last.metadata;
  Object.defineProperty(last, 'metadata', {
    enumerable: true,
    get() {
      if (collectedAtLast < 0) {
        gc();
        collectedAtLast = refs.slice(0, ITEMS - 1).filter((r) => r.deref() === undefined).length;
      }
      return metadata;
    },
  });
  let page: unknown = { metadata: { resourceVersion: '7' }, items };
  // Answered in a later task, as a real response is: the WeakRefs made in this one no longer hold their objects.
  const conn = { getJson: () => new Promise((resolve) => setTimeout(() => { const p = page; page = undefined; resolve(p); }, 10)) } as unknown as ApiConnection;
  const got = await resourceClients(conn).services.list({});
  assert.equal(got.items.length, ITEMS);
  assert.equal(got.items[ITEMS - 1].metadata?.name, `svc-${ITEMS - 1}`);
  assert.equal(collectedAtLast, ITEMS - 1, `${collectedAtLast} of the ${ITEMS - 1} objects decoded before the last were collectable`);
});
