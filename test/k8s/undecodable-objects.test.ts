// An object with a field of the wrong shape (a number where a list belongs, a string where an
// object belongs) costs that object only: the list still delivers everything else, a watch keeps going,
// and an object that was fine before keeps its previous version.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { recordingLogger, RecordingSink, service, slice, startTestWatcher, waitFor, serverPerTest } from './helpers';

const t = serverPerTest();

function broken(ns: string, name: string) {
  const s = slice(ns, name, `${name}-bad`);
  s.ports = 8080; // a list in the API (client-node's deserialiser throws "data is not iterable")
  return s;
}

describe('objects with a field of the wrong shape', { timeout: 30_000 }, () => {
  it('are skipped with a warning naming them; the rest of the list is delivered', async () => {
    t.api.create('endpointslices', broken('default', 'web'));
    for (let i = 0; i < 3; i++) {
      t.api.create('services', service('default', `svc${i}`));
      t.api.create('endpointslices', slice('default', `svc${i}`));
    }
    const sink = new RecordingSink();
    const log = recordingLogger();
    t.watcher = startTestWatcher(t.api, sink, { log, pageSize: 2 });
    await waitFor('synced', () => sink.synced === 1);
    assert.deepEqual(sink.sliceKeys(), ['default/svc0-abc', 'default/svc1-abc', 'default/svc2-abc']);
    const warned = log.entries.filter((e) => e.level === 'warn' && e.obj.object === 'default/web-bad');
    assert.equal(warned.length, 1);
    assert.match(warned[0].msg, /cannot be decoded; skipped/);
    assert.equal(warned[0].obj.err, 'ports: expected a list, got a number');
  });

  it('are named by the broken field, also where the deserialiser would quietly coerce it', async () => {
    const s = slice('default', 'web', 'web-cond');
    s.endpoints[0].conditions = 'ready'; // the deserialiser would make it {} (a ready endpoint)
    t.api.create('endpointslices', s);
    const sink = new RecordingSink();
    const log = recordingLogger();
    t.watcher = startTestWatcher(t.api, sink, { log });
    await waitFor('synced', () => sink.synced === 1);
    assert.equal(sink.slices.size, 0);
    assert.ok(log.entries.some((e) => e.obj.object === 'default/web-cond' && e.obj.err === 'endpoints[0].conditions: expected an object, got a string'));
  });

  it('in a watch event: skipped, the watch goes on, and a good object keeps its previous version', async () => {
    const sink = new RecordingSink();
    const log = recordingLogger();
    t.watcher = startTestWatcher(t.api, sink, { log, watchTimeoutSeconds: () => 30 });
    await waitFor('synced', () => sink.synced === 1);
    const good = t.api.create('endpointslices', slice('default', 'web', 'web-1'));
    await waitFor('add', () => sink.slices.has('default/web-1'));
    t.api.update('endpointslices', { ...good, ports: 8080 });
    t.api.create('services', service('default', 'after'));
    await waitFor('the watch goes on after the bad event', () => sink.services.has('default/after'));
    assert.equal((sink.slices.get('default/web-1')!.ports ?? [])[0]?.port, 8080, 'the previous version stays');
    assert.ok(log.entries.some((e) => e.obj.object === 'default/web-1' && /keeping its previous version/.test(e.msg)));
    // A relist (410 Gone) keeps it too, instead of reporting it deleted.
    t.api.compact();
    t.api.breakWatches(true);
    t.api.create('services', service('default', 'after-relist'));
    await waitFor('relisted', () => sink.services.has('default/after-relist'));
    assert.ok(sink.slices.has('default/web-1'));
    assert.ok(!sink.log.includes('slice delete default/web-1'));
  });
});
