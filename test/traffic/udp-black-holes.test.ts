// UDP without black holes (issue 15): one socket keeps one source port, as DNS resolvers and statsd
// clients do, and sends a datagram every 15 ms to a UDP Service's ClusterIP while its endpoints
// change and the proxy restarts. Its single conntrack flow would keep DNATing to a removed endpoint
// (or keep the reject) until the proxy deletes it. Each answer names the pod; an ICMP reject shows as
// ECONNREFUSED on the connected socket. Bounds are the (1 s); the measured figures are printed.
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { applied, Cluster, startCluster, waitForAnswer } from './harness';
import { endpointSlice, service, type PortSpec } from './fixtures';
import type { Pod } from '../helpers/topology';
import { firstAnswerFrom, lastAnswerFrom, outcome, outcomeCounts, sentBetween, type Datagram, type DatagramLog } from './datagram-log';
import { UdpStream } from './udp-stream';
import { conntrackFlow, lastSyncTime, pinnedPort, programmed } from './udp-flow';

const BOUND_MS = 1000;
const ports: PortSpec[] = [{ port: 53, targetPort: 8080, protocol: 'UDP' }];

/** Datagrams `pod` answered that were sent at or after `since`. */
const answeredSince = (log: DatagramLog, pod: string, since: number): Datagram[] => log.datagrams.filter((d) => d.answeredBy === pod && d.sentAt >= since);
const sentSince = (log: DatagramLog, since: number): number => log.datagrams.filter((d) => d.sentAt >= since).length;

describe('a UDP flow from one source port, without black holes', () => {
  let c: Cluster;
  const streams: UdpStream[] = [];
  before(async () => {
    c = await startCluster({ pods: 3, prefix: 'kpu' });
    // Per-flow packet counts, so a flow kept across a restart can be seen counting on.
    c.topo.node.exec('sysctl', ['-qw', 'net.netfilter.nf_conntrack_acct=1']);
  });
  after(async () => {
    for (const s of streams) s.kill();
    await c?.stop();
  });

  const slice = (name: string, pods: Pod[]) => endpointSlice(name, `${name}-1`, { ports, endpoints: pods.map((p) => ({ ip: p.ip })) });

  /** A UDP Service on `ip`:53 with `pods` as endpoints, answering. */
  async function udpService(name: string, ip: string, pods: Pod[]): Promise<void> {
    c.api.create('services', service(name, { clusterIP: ip, ports }));
    c.api.create('endpointslices', slice(name, pods));
    await programmed(c, ip);
    await waitForAnswer(c, 'udp', ip, 53);
  }

  /** Replaces the Service's endpoints; returns the time of the API server update (before the call). */
  function setEndpoints(name: string, pods: Pod[]): number {
    const at = Date.now();
    c.api.update('endpointslices', slice(name, pods));
    return at;
  }

  /** A stream from `sourcePort` already answered by `pod` (10 answers). */
  async function streamTo(ip: string, sourcePort: number, pod: string): Promise<UdpStream> {
    const s = await UdpStream.start(c.topo.client, ip, 53, { sourcePort });
    streams.push(s);
    await s.until((l) => answeredSince(l, pod, 0).length >= 10, `${pod} to answer the flow from port ${sourcePort}`);
    return s;
  }

  /** Asserts no datagram reached `pod` (as its answer shows) more than BOUND_MS after `since`; returns the gap. */
  function assertStoppedReaching(t: TestContext, log: DatagramLog, pod: string, since: number, what: string): number {
    const last = lastAnswerFrom(log, pod);
    assert.ok(last, `${pod} never answered`);
    const gap = last.answeredAt! - since;
    t.diagnostic(`${what}: last answer from ${pod} ${gap} ms after it (datagram ${last.seq}, sent at +${last.sentAt - since} ms)`);
    assert.ok(gap <= BOUND_MS, `${pod} still answered ${gap} ms after ${what}`);
    return gap;
  }

  /** Asserts `pod` answered within BOUND_MS of `since` and answered every datagram sent after its first answer. */
  function assertReachedAndStays(t: TestContext, log: DatagramLog, pod: string, since: number, what: string): void {
    const first = firstAnswerFrom(log, pod, 0);
    assert.ok(first, `${pod} never answered`);
    const delay = first.answeredAt! - since;
    t.diagnostic(`${what}: first answer from ${pod} ${delay} ms after it`);
    assert.ok(delay <= BOUND_MS, `${pod} answered only ${delay} ms after ${what}`);
    const later = sentBetween(log, first.sentAt, Infinity);
    assert.deepEqual(outcomeCounts(later), { [pod]: later.length }, `datagrams after ${pod}'s first answer`);
  }

  for (const replaced of [1, 2]) {
    it(`moves the flow off a replaced endpoint within 1 s of the EndpointSlice update (${replaced === 1 ? 'its only endpoint' : 'one of two'})`, async (t) => {
      const [pod0, pod1, pod2] = c.topo.pods;
      const name = `replace${replaced}`;
      const ip = `100.100.7.${10 + replaced}`;
      await udpService(name, ip, replaced === 1 ? [pod0] : [pod0, pod1]);
      // The flow must start on pod0: a source port whose flow the kernel DNATed there (its entry then
      // carries the stream's datagrams, same 5-tuple).
      const sourcePort = pinnedPort(c, ip, 'pod0', 41000 + 100 * replaced);
      const s = await streamTo(ip, sourcePort, 'pod0');
      const updatedAt = setEndpoints(name, replaced === 1 ? [pod1] : [pod1, pod2]);
      await s.until((l) => sentSince(l, updatedAt + 2 * BOUND_MS) >= 10, 'the flow to run 2 s past the update');
      const log = await s.stop();
      assertStoppedReaching(t, log, 'pod0', updatedAt, 'the EndpointSlice update');
      const after = sentBetween(log, updatedAt + BOUND_MS, Infinity);
      // One flow, one endpoint: the new one, or with two endpoints either current one (a new flow picks at random).
      const [target] = Object.keys(outcomeCounts(after));
      assert.ok((replaced === 1 ? ['pod1'] : ['pod1', 'pod2']).includes(target), `the flow went to ${target}`);
      assert.deepEqual(outcomeCounts(after), { [target]: after.length }, 'datagrams sent from 1 s after the update');
      t.diagnostic(`datagrams in the second after the update: ${JSON.stringify(outcomeCounts(sentBetween(log, updatedAt, updatedAt + BOUND_MS)))}`);
    });
  }

  it('rejects the flow while the Service has no endpoints, and lets it through within 1 s of one coming back', async (t) => {
    const [pod0, pod1] = c.topo.pods;
    await udpService('blink', '100.100.7.20', [pod0]);
    const s = await streamTo('100.100.7.20', 42001, 'pod0');
    const zeroAt = setEndpoints('blink', []);
    await s.until((l) => sentSince(l, zeroAt + BOUND_MS) >= 30, '30 datagrams sent past the bound with no endpoints');
    const backAt = setEndpoints('blink', [pod1]);
    await s.until((l) => answeredSince(l, 'pod1', backAt).length >= 20, 'pod1 to answer 20 datagrams');
    const log = await s.stop();

    assertStoppedReaching(t, log, 'pod0', zeroAt, 'the endpoints were removed');
    const firstRefused = log.datagrams.find((d) => d.sentAt >= zeroAt && d.refusedAt !== undefined);
    assert.ok(firstRefused, 'no datagram was rejected');
    t.diagnostic(`first reject ${firstRefused.refusedAt! - zeroAt} ms after the endpoints were removed`);
    // Every datagram sent while there were no endpoints (past the bound) got the ICMP reject: none vanished.
    const empty = sentBetween(log, zeroAt + BOUND_MS, backAt);
    assert.ok(empty.length >= 30);
    assert.deepEqual(outcomeCounts(empty), { refused: empty.length }, 'datagrams sent with no endpoints');
    assertReachedAndStays(t, log, 'pod1', backAt, 'an endpoint came back');
    assert.deepEqual(log.otherErrors, []);
  });

  it('keeps the flow (the same conntrack entry, every datagram answered) across a restart with its endpoint unchanged', async (t) => {
    await udpService('steady', '100.100.7.30', [c.topo.pods[0]]);
    const s = await streamTo('100.100.7.30', 43001, 'pod0');
    const before = conntrackFlow(c.topo.node, 43001);
    let downFrom = 0;
    let downTo = 0;
    await c.restartProxy(async () => {
      downFrom = Date.now();
      await s.until((l) => sentSince(l, downFrom) >= 20, '20 datagrams sent while no proxy runs');
      downTo = Date.now();
    });
    await c.proxy.nextSync();
    const firstSync = await lastSyncTime(c);
    await applied(c);
    const syncedAt = Date.now();
    await s.until((l) => sentSince(l, syncedAt) >= 20, '20 datagrams after the new proxy synced');
    const afterRestart = conntrackFlow(c.topo.node, 43001);
    const log = await s.stop();

    assert.equal(afterRestart.id, before.id, 'the flow\'s conntrack entry was replaced');
    assert.ok(afterRestart.packets >= before.packets + 40, `the entry did not count on: ${before.packets} then ${afterRestart.packets} packets`);
    // When the ones not answered by pod0 were sent, relative to the old proxy's stop.
    const odd = log.datagrams.filter((d) => d.answeredBy !== 'pod0').map((d) => `${d.seq} ${outcome(d)} at +${d.sentAt - downFrom} ms`);
    const timeline = `proxy stopped at +0, the new one started at +${downTo - downFrom} ms, its first sync ended at +${firstSync - downFrom} ms; the client's end: ${log.end}`;
    assert.deepEqual(outcomeCounts(log.datagrams), { pod0: log.datagrams.length }, `every datagram answered by pod0; not: ${odd.join(', ')}; ${timeline}`);
    t.diagnostic(`${log.datagrams.length} datagrams, ${sentBetween(log, downFrom, downTo).length} while no proxy ran, all answered by pod0; entry id ${before.id}, ${before.packets} -> ${afterRestart.packets} packets`);
  });

  for (const removal of ['replaced', 'removed'] as const) {
    it(`after a restart, moves the flow off an endpoint ${removal} while no proxy ran within 1 s of the first sync`, async (t) => {
      const [pod0, pod1] = c.topo.pods;
      const name = `down-${removal}`;
      const ip = removal === 'replaced' ? '100.100.7.40' : '100.100.7.41';
      const sourcePort = removal === 'replaced' ? 44001 : 44002;
      await udpService(name, ip, [pod0]);
      const s = await streamTo(ip, sourcePort, 'pod0');
      let updatedAt = 0;
      await c.restartProxy(async () => {
        updatedAt = setEndpoints(name, removal === 'replaced' ? [pod1] : []);
        // Nobody deletes the flow now: it goes on reaching pod0.
        await s.until((l) => answeredSince(l, 'pod0', updatedAt).length >= 10, 'pod0 to keep answering while no proxy runs');
      });
      await c.proxy.nextSync();
      const syncedAt = await lastSyncTime(c);
      const outcomeAfter = removal === 'replaced' ? 'pod1' : 'refused';
      await s.until((l) => l.datagrams.filter((d) => d.sentAt >= syncedAt && outcome(d) === outcomeAfter).length >= 20,
        `20 datagrams to be ${outcomeAfter === 'pod1' ? 'answered by pod1' : 'rejected'} after the first sync`);
      const log = await s.stop();

      t.diagnostic(`first sync ${syncedAt - updatedAt} ms after the EndpointSlice update made while no proxy ran`);
      assertStoppedReaching(t, log, 'pod0', syncedAt, 'the new proxy\'s first sync');
      if (removal === 'replaced') {
        assertReachedAndStays(t, log, 'pod1', syncedAt, 'the new proxy\'s first sync');
      } else {
        const first = log.datagrams.find((d) => d.refusedAt !== undefined);
        assert.ok(first, 'no datagram was rejected');
        t.diagnostic(`first reject ${first.refusedAt! - syncedAt} ms after the first sync`);
        assert.ok(first.refusedAt! - syncedAt <= BOUND_MS);
        const later = sentBetween(log, first.sentAt, Infinity);
        assert.deepEqual(outcomeCounts(later), { refused: later.length }, 'datagrams after the first reject');
      }
    });
  }
});
