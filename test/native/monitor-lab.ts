// Shared set-up of the monitor tests: a fixture table committed through Nft, a monitor watching
// it, and an event log that waits (with a deadline) for the event a test expects.
import assert from 'node:assert/strict';
import { CommitReport, MonitorChange, MonitorEvent, Nft, NftMonitor, rule, SetSpec, Transaction } from '../../src/native';
import { TestNetns } from '../helpers/netns';

export const T = 'kube-proxy';
export const MAP: SetSpec = { name: 'svc-map', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' };
export const EXTRA: SetSpec = { name: 'extra', key: ['ipv4_addr'] };

/** table ip kube-proxy: chains services (2 rules), unused (empty), svc-input (base, 1 rule);
 *  map svc-map (3 elements), set extra (1 element). */
export function fixtureTx(): Transaction {
  const tx = new Transaction();
  tx.addTable('ip', T);
  tx.addChain('ip', T, { name: 'services' });
  tx.addChain('ip', T, { name: 'unused' });
  tx.addChain('ip', T, { name: 'svc-input', base: { type: 'filter', hook: 'input', priority: 0 } });
  tx.addSet('ip', T, MAP);
  tx.addSet('ip', T, EXTRA);
  tx.addElements('ip', T, MAP.name, [1, 2, 3].map((i) => ({ key: [`10.0.0.${i}`, 'tcp', 80], verdict: { kind: 'jump', chain: 'services' } as const })));
  tx.addElements('ip', T, EXTRA.name, [{ key: ['192.0.2.1'] }]);
  tx.addRule('ip', T, 'services', rule('ip').counter().build());
  tx.addRule('ip', T, 'services', rule('ip').verdict({ kind: 'return' }).build());
  tx.addRule('ip', T, 'svc-input', rule('ip').vmap(['daddr', 'l4proto', 'dport'], MAP.name).build());
  return tx;
}

export class EventLog {
  readonly events: MonitorEvent[] = [];
  private wake: (() => void) | undefined;

  readonly push = (e: MonitorEvent): void => {
    this.events.push(e);
    this.wake?.();
  };

  /** The first event at index >= from that matches; rejects after timeoutMs. */
  async waitFor(pred: (e: MonitorEvent) => boolean, timeoutMs: number, from = 0): Promise<MonitorEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.events.slice(from).find(pred);
      if (hit) return hit;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching monitor event within ${timeoutMs} ms; got ${JSON.stringify(this.events.slice(from))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => { clearTimeout(timer); resolve(); };
      });
      this.wake = undefined;
    }
  }
}

export const isCommit = (e: MonitorEvent): e is CommitReport => e.type === 'commit';
export const touches = (name: string) => (e: MonitorEvent) => isCommit(e) && e.changes.some((c) => c.name === name);

/** Changes without family/table (always ip kube-proxy in these tests), in a stable order. */
export function summary(changes: MonitorChange[]): string[] {
  for (const c of changes) assert.deepEqual([c.family, c.table], ['ip', T], JSON.stringify(c));
  return changes.map((c) => `${c.op} ${c.kind}${c.name ? ` ${c.name}` : ''} x${c.count}`).sort();
}

export interface Lab { ns: TestNetns; nft: Nft; monitor: NftMonitor; log: EventLog }

/** Opens Nft and a monitor of ip kube-proxy with Nft's port id as own, then commits the fixture. */
export async function openLab(ns: TestNetns, opts: { own?: boolean; recvBufferBytes?: number } = {}): Promise<Lab> {
  const nft = Nft.open({ netns: ns.path });
  const log = new EventLog();
  const monitor = NftMonitor.open({
    netns: ns.path, interest: [{ family: 'ip', table: T }], ownPortIds: opts.own === false ? [] : [nft.portId],
    recvBufferBytes: opts.recvBufferBytes,
  }, log.push);
  await nft.commit(fixtureTx());
  return { ns, nft, monitor, log };
}

export function closeLab(lab: Lab): void {
  lab.monitor.close();
  lab.nft.close();
}

/** A foreign change everyone can wait for: events before it are all that the earlier actions caused. */
export async function sentinel(lab: Lab, name = 'sentinel'): Promise<CommitReport> {
  const from = lab.log.events.length;
  lab.ns.nft('add', 'chain', 'ip', T, name);
  return (await lab.log.waitFor(touches(name), 1000, from)) as CommitReport;
}
