// The ipset step's decisions over the kernel's answers (pure, with a scripted destroy): a set
// busy at first is tried again (the kernel releases a deleted rule's hold after the commit), one
// still busy stays with a warning, a missing one is nothing, any other error is a failure, as
// upstream's cleanupLeftovers counts every error but "not found".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IPSET_ERR_BUSY, type IpsetOutcome } from '../../src/native';
import { cleanupUpstreamIpsets } from '../../src/cleanup/upstream-ipsets';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

function scripted(answers: Record<string, number[]>) {
  const calls: string[][] = [];
  const destroy = async (names: readonly string[]): Promise<IpsetOutcome[]> => {
    calls.push([...names]);
    return names.map((name) => {
      const errno = answers[name].length > 1 ? (answers[name].shift() as number) : answers[name][0];
      return { name, errno, message: errno === 0 ? '' : `error ${errno}` };
    });
  };
  return { destroy, calls };
}

test('busy at first, then destroyed: retried; missing sets are not reported', async () => {
  const s = scripted({ A: [IPSET_ERR_BUSY, 0], B: [0], C: [2] });
  const r = await cleanupUpstreamIpsets(s.destroy, quiet, ['A', 'B', 'C']);
  assert.deepEqual(r, { destroyed: ['B', 'A'], inUse: [], failed: [] });
  assert.deepEqual(s.calls, [['A', 'B', 'C'], ['A']]);
});

test('still busy after the retries: kept with a warning, not a failure', async () => {
  const warned: string[] = [];
  const s = scripted({ A: [IPSET_ERR_BUSY] });
  const r = await cleanupUpstreamIpsets(s.destroy, { ...quiet, warn: (o: { ipset?: string }) => { warned.push(o.ipset ?? ''); } }, ['A']);
  assert.deepEqual(r, { destroyed: [], inUse: ['A'], failed: [] });
  assert.equal(s.calls.length, 21);
  assert.deepEqual(warned, ['A']);
});

test('any other error is a failure naming the set', async () => {
  const s = scripted({ A: [1] });
  const r = await cleanupUpstreamIpsets(s.destroy, quiet, ['A']);
  assert.deepEqual(r.failed, [{ what: 'ipset A', error: 'error 1 (errno 1)' }]);
});

test('a kernel without ipset (nfnetlink\'s EINVAL for every set): nothing to do, no failure', async () => {
  const s = scripted({ A: [22], B: [22] });
  const r = await cleanupUpstreamIpsets(s.destroy, quiet, ['A', 'B']);
  assert.deepEqual(r, { destroyed: [], inUse: [], failed: [] });
  assert.equal(s.calls.length, 1);
});

test('EINVAL for one set among others is a failure', async () => {
  const s = scripted({ A: [22], B: [0] });
  const r = await cleanupUpstreamIpsets(s.destroy, quiet, ['A', 'B']);
  assert.deepEqual(r.failed.map((f) => f.what), ['ipset A']);
});
