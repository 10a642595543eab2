// One size of the IPVS bench, inside the guest: ours (ours.ts), then the peer (peer.ts) in another
// fresh namespace replaying the same cluster and the same one-endpoint changes. With `verify`, both
// namespaces' IPVS are read with `ipvsadm -Sn` after the cold load and after the changes, and must
// be equal: the two sides did the same IPVS work.
import { syntheticCluster } from '../lib/cluster';
import { progress } from '../report/table';
import { emptyAndDestroy, ipvsState, measureOurs, nodeNetns, type OursResult } from './ours';
import { addressBatch, changeText, restoreText, timedInNetns, withTextFile, type ProcTiming } from './peer';
import { ENDPOINTS_PER_SERVICE, NODEPORT_SHARE } from './snapshot';

export interface PeerResult {
  restore: ProcTiming;
  addresses: ProcTiming;
  partial: ProcTiming[];
  /** `ipvsadm -R` of nothing: what starting ipvsadm in the namespace costs, the peer's floor. */
  floor: ProcTiming[];
}

export interface SizeResult {
  services: number;
  virtualServices: number;
  realServers: number;
  ours: Omit<OursResult, 'coldState' | 'finalState' | 'swaps'>;
  peer: PeerResult;
  verified: boolean;
}

export async function measureSize(n: number, repeats: number, verify: boolean): Promise<SizeResult> {
  const ours = await measureOurs(n, repeats, verify);
  const synth = syntheticCluster({ services: n, endpointsPerService: ENDPOINTS_PER_SERVICE, nodePortShare: NODEPORT_SHARE });
  const ns = nodeNetns();
  try {
    const restore = withTextFile(restoreText(synth), (f) => timedInNetns(ns, 'ipvsadm', ['-R'], f));
    const addresses = withTextFile(addressBatch(synth), (f) => timedInNetns(ns, 'ip', ['-batch', f]));
    progress(`  peer: ipvsadm -R ${restore.wallMs.toFixed(0)} ms, ip -batch ${addresses.wallMs.toFixed(0)} ms`);
    if (verify) sameState('after the cold load', ours.coldState!, ipvsState(ns));
    // Each change is followed by the floor, so both see the same load (other guests share the CPUs).
    const partial: ProcTiming[] = [];
    const floor: ProcTiming[] = [];
    ours.swaps.forEach((swap, k) => {
      partial.push(withTextFile(changeText(swap, ours.swaps[k - 1]), (f) => timedInNetns(ns, 'ipvsadm', ['-R'], f)));
      floor.push(timedInNetns(ns, 'ipvsadm', ['-R'], '/dev/null'));
    });
    if (verify) sameState(`after ${repeats} one-endpoint changes`, ours.finalState!, ipvsState(ns));
    progress('  peer: changes and floor done');
    const nodePorts = synth.filter((s) => s.nodePort).length;
    const { coldState, finalState, swaps, ...timings } = ours;
    void coldState; void finalState; void swaps;
    return {
      services: n, virtualServices: n + nodePorts, realServers: (n + nodePorts) * ENDPOINTS_PER_SERVICE,
      ours: timings, peer: { restore, addresses, partial, floor }, verified: verify,
    };
  } finally {
    emptyAndDestroy(ns);
    progress('  peer: namespace emptied and deleted');
  }
}

function sameState(when: string, ours: string[], peer: string[]): void {
  const theirs = new Set(peer);
  const onlyOurs = ours.filter((l) => !theirs.has(l));
  const mine = new Set(ours);
  const onlyPeer = peer.filter((l) => !mine.has(l));
  if (onlyOurs.length || onlyPeer.length) {
    throw new Error(`IPVS differs between ours and ipvsadm ${when}: only ours ${JSON.stringify(onlyOurs.slice(0, 5))} `
      + `(${onlyOurs.length}), only the peer's ${JSON.stringify(onlyPeer.slice(0, 5))} (${onlyPeer.length})`);
  }
}
