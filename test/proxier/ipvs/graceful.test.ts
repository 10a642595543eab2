// Graceful termination of real servers: weight 0 first, deleted when the connections are gone (read
// on later syncs from only the services that drain), UDP at once, deleted anyway after the bound,
// given its weight back when desired again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IpvsServiceKey } from '../../../src/native/ipvs/ipvs-types';
import { changed, ep, ipvsText, opsSince, setup, snapshot, sp } from './helpers';

const vip: IpvsServiceKey = { family: 4, protocol: 'TCP', address: '10.96.0.10', port: 80 };
const gone = { address: '10.1.0.6', port: 8080 };

async function drainingOne(over: Parameters<typeof setup>[0] = {}) {
  const s = setup(over);
  const a = sp('a');
  await s.proxier.sync(snapshot([[a, [ep('10.1.0.5'), ep('10.1.0.6')]]]), changed([]), true);
  s.ipvs.setConnections(vip, gone, { active: 1, inactive: 2 });
  const from = s.ipvs.batches.length;
  await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([a.key]), false);
  return { s, a, from };
}

describe('graceful termination', () => {
  it('a removed TCP real server gets weight 0 and stays while it has connections', async () => {
    const { s, a, from } = await drainingOne();
    assert.deepEqual(opsSince(s.ipvs, from), ['editDest TCP 10.96.0.10:80 -> 10.1.0.6:8080 w0']);
    assert.deepEqual(await ipvsText(s.ipvs), ['TCP 10.96.0.10:80 rr -> 10.1.0.5:8080 w1 10.1.0.6:8080 w0']);
    assert.equal(s.proxier.drainingCount, 1);
    const calls = s.ipvs.calls.dumpDestinations;
    const dumps = s.ipvs.calls.dump;
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([]), false);
    assert.equal(s.ipvs.calls.dumpDestinations, calls + 1, 'one read, of the draining service only');
    assert.equal(s.ipvs.calls.dump, dumps, 'never a full dump after start-up');
    assert.equal((await ipvsText(s.ipvs))[0].includes('10.1.0.6'), true);
    s.ipvs.setConnections(vip, gone, { active: 0, inactive: 1 });
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([]), false);
    assert.equal((await ipvsText(s.ipvs))[0].includes('10.1.0.6'), true, 'inactive connections count too');
    s.ipvs.setConnections(vip, gone, { active: 0, inactive: 0 });
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([]), false);
    assert.deepEqual(await ipvsText(s.ipvs), ['TCP 10.96.0.10:80 rr -> 10.1.0.5:8080 w1']);
    assert.equal(s.proxier.drainingCount, 0);
    const reads = s.ipvs.calls.dumpDestinations;
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([]), false);
    assert.equal(s.ipvs.calls.dumpDestinations, reads, 'nothing drains: nothing is read');
  });

  it('UDP and SCTP real servers are deleted at once', async () => {
    for (const protocol of ['UDP', 'SCTP'] as const) {
      const s = setup();
      const a = sp('a', { protocol, port: 53 });
      await s.proxier.sync(snapshot([[a, [ep('10.1.0.5', 53), ep('10.1.0.6', 53)]]]), changed([]), true);
      const from = s.ipvs.batches.length;
      await s.proxier.sync(snapshot([[a, [ep('10.1.0.5', 53)]]]), changed([a.key]), false);
      assert.deepEqual(opsSince(s.ipvs, from), [`deleteDest ${protocol} 10.96.0.10:53 -> 10.1.0.6:53`]);
      assert.equal(s.proxier.drainingCount, 0);
    }
  });

  it('past the bound a draining server is deleted whatever its connections', async () => {
    const { s, a } = await drainingOne({ gracefulBoundMs: 60_000 });
    s.clock.t = 59_999;
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([]), false);
    assert.equal(s.proxier.drainingCount, 1);
    s.clock.t = 60_000;
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([]), false);
    assert.deepEqual([await ipvsText(s.ipvs), s.proxier.drainingCount], [['TCP 10.96.0.10:80 rr -> 10.1.0.5:8080 w1'], 0]);
  });

  it('a draining server desired again gets its weight back and is not deleted', async () => {
    const { s, a } = await drainingOne();
    const from = s.ipvs.batches.length;
    s.ipvs.setConnections(vip, gone, { active: 0, inactive: 0 });
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5'), ep('10.1.0.6')]]]), changed([a.key]), false);
    assert.deepEqual(opsSince(s.ipvs, from), ['editDest TCP 10.96.0.10:80 -> 10.1.0.6:8080 w1']);
    assert.equal(s.proxier.drainingCount, 0);
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5'), ep('10.1.0.6')]]]), changed([]), false);
    assert.deepEqual(await ipvsText(s.ipvs), ['TCP 10.96.0.10:80 rr -> 10.1.0.5:8080 w1 10.1.0.6:8080 w1']);
  });

  it('a deleted virtual service takes its draining servers with it', async () => {
    const { s, a } = await drainingOne();
    await s.proxier.sync(snapshot([]), changed([a.key], [a]), false);
    assert.deepEqual([await ipvsText(s.ipvs), s.proxier.drainingCount], [[], 0]);
  });

  it('a server that vanished from the kernel stops draining without an op', async () => {
    const { s, a } = await drainingOne();
    await s.ipvs.apply([{ op: 'deleteDest', service: vip, dest: gone }]);
    const from = s.ipvs.batches.length;
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([]), false);
    assert.deepEqual([opsSince(s.ipvs, from), s.proxier.drainingCount], [[], 0]);
  });
});
