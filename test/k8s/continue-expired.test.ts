// A paged list whose continue token expires between two pages, answered as kube-apiserver v1.37.2
// answers it (410 Expired with an inconsistent-continuation token): the Reflector lists again from
// the start, once, never takes the offered token, and ends with exactly what is stored.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RecordingSink, recordingLogger, service, serverPerTest, startTestWatcher, waitFor } from './helpers';

const t = serverPerTest();
const PATH = '/api/v1/services';

describe('a continue token that expires mid-list', { timeout: 30_000 }, () => {
  it('relists once from the start, ignores the inconsistent token, and loses no change', async () => {
    for (let i = 0; i < 7; i++) t.api.create('services', service('default', `s${i}`));
    // The first page's snapshot is taken at once and its answer held back: in that window the
    // store changes and is compacted, so the second page's token has expired when it is asked for.
    let firstPage = true;
    t.api.listDelay = (path) => {
      if (path !== PATH || !firstPage) return 0;
      firstPage = false;
      setTimeout(() => {
        t.api.delete('services', service('default', 's1'));
        t.api.update('services', { ...service('default', 's5'), metadata: { namespace: 'default', name: 's5', labels: { v: '2' } } });
        t.api.create('services', service('default', 's9'));
        t.api.compact();
      }, 50);
      return 300;
    };
    const sink = new RecordingSink();
    const log = recordingLogger();
    t.watcher = startTestWatcher(t.api, sink, { pageSize: 3, log });
    await waitFor('synced', () => sink.synced === 1);
    const want = t.api.store.list('services').map((o) => `${o.metadata!.namespace}/${o.metadata!.name}@${o.metadata!.resourceVersion}`).sort();
    const got = [...sink.services.values()].map((s) => `${s.metadata!.namespace}/${s.metadata!.name}@${s.metadata!.resourceVersion}`).sort();
    assert.deepEqual(got, want);
    const lists = t.api.requestsFor(PATH, 'list');
    const fresh = lists.filter((r) => r.query.continue === undefined);
    assert.equal(fresh.length, 2, 'the first list and one relist, no storm');
    for (const r of lists.filter((l) => l.query.continue)) {
      assert.ok(!Buffer.from(r.query.continue, 'base64').toString().includes('"start"'), 'the inconsistent continuation is never used');
    }
    // Said as what it is: the continue token expired after one page (not "resourceVersion expired"),
    // with the server's own words.
    const said = log.entries.filter((e) => e.obj.resource === 'services' && /expired/.test(e.msg));
    assert.deepEqual(said.map((e) => [e.level, e.msg, e.obj.pagesListed]), [['info', 'list continue token expired (410); listing again from the first page', 1]]);
    assert.match(String(said[0].obj.err), /HTTP 410 Expired: The provided continue parameter is too old/);
  });
});
