// "A second 410 in a row backs off" means a relist whose own version had already expired. Seen against
// kube-apiserver v1.37.2 restarted four times: each restart reset our watch (ECONNRESET), refused the
// reconnection (403, RBAC not loaded yet) and then expired its version (410); the relist after each
// 410 came later and later (0, 1.1, 2.0, 4.2 s), as if the 410s had been in a row.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RecordingSink, service, serverPerTest, startTestWatcher, waitFor } from './helpers';

const t = serverPerTest();
const PATH = '/api/v1/services';
const BACKOFF = { initialMs: 400, maxMs: 4000, factor: 2, jitter: 0 };

describe('410 Gone after other failures', { timeout: 30_000 }, () => {
  it('relists at once after each 410 that follows a working watch, however many there were before', async () => {
    const sink = new RecordingSink();
    t.watcher = startTestWatcher(t.api, sink, { backoff: BACKOFF, watchTimeoutSeconds: () => 60 });
    await waitFor('synced', () => sink.synced === 1);
    for (let round = 1; round <= 3; round++) {
      const lists = t.api.requestsFor(PATH, 'list').length;
      await waitFor('watching', () => t.api.openWatches >= 5);
      // The connection breaks (an error, not a 410) and the version expires meanwhile.
      t.api.create('services', service('default', `r${round}`));
      t.api.compact();
      t.api.breakWatches();
      await waitFor(`relisted (round ${round})`, () => t.api.requestsFor(PATH, 'list').length > lists, 8000);
      await waitFor('caught up', () => sink.services.has(`default/r${round}`));
      const relist = t.api.requestsFor(PATH, 'list')[lists];
      // The watch that got the 410: the last one before the relist.
      const expiredWatch = t.api.requestsFor(PATH, 'watch').filter((w) => w.time <= relist.time).at(-1)!;
      assert.ok(relist.time - expiredWatch.time < BACKOFF.initialMs / 2, `round ${round}: relisted ${relist.time - expiredWatch.time} ms after the 410`);
    }
  });
});
