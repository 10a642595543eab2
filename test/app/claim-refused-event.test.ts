// The AddressClaimRefused event's object reference. `kubectl describe service` lists only the events
// whose involvedObject.uid is the Service's metadata.uid (its events.Search field selector), so an
// event named by a stand-in UID reads back with `kubectl get events` and never with describe; seen
// against the real kube-apiserver in test/upstream/traffic-lifecycle.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { recordClaimRefused } from '../../src/app/kube-events';
import { EventRecorder, type KubeEvent } from '../../src/k8s/event-recorder';

function capture(): { recorder: EventRecorder; posted: KubeEvent[] } {
  const posted: KubeEvent[] = [];
  const recorder = new EventRecorder({ post: async (_ns, e) => { posted.push(e); }, hostname: 'host-1', retryDelayMs: 10 });
  return { recorder, posted };
}

describe('the AddressClaimRefused event', () => {
  it('names the claimant Service by its UID', async () => {
    const { recorder, posted } = capture();
    recordClaimRefused(recorder, { namespace: 'team-b', name: 'claimant', uid: '5a1c0c52-36c0-4a6e-9d1e-0c1a1b2c3d4e' }, 'refused');
    await recorder.flush(5000);
    assert.deepEqual(posted.map((e) => e.regarding), [{ kind: 'Service', namespace: 'team-b', name: 'claimant', uid: '5a1c0c52-36c0-4a6e-9d1e-0c1a1b2c3d4e' }]);
    assert.deepEqual([posted[0].type, posted[0].reason, posted[0].action], ['Warning', 'AddressClaimRefused', 'Program']);
  });

  it('falls back to "namespace/name" (upstream\'s stand-in for its health-check event) when the UID is unknown', async () => {
    const { recorder, posted } = capture();
    recordClaimRefused(recorder, { namespace: 'team-b', name: 'claimant' }, 'refused');
    await recorder.flush(5000);
    assert.equal(posted[0].regarding.uid, 'team-b/claimant');
  });
});
