// A "node" of the tier: a network namespace of the test's own, joined to the control plane's by a
// veth pair (a /30 of 10.100.0.0/16 for the link, the node's default route through it), so a proxy
// running there reaches kube-apiserver at https://10.99.0.1:6443 over a link, as a node does.
// Removing the namespace removes the pair; the Node object is deleted with the rest of the test's.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { createNetns, type TestNetns } from '../helpers/netns';
import { controlPlane } from './control-plane';

export interface TierNode {
  /** The Node object's name (unique in the shared control plane). */
  name: string;
  ns: TestNetns;
  /** The node's address on its link to the control plane: its InternalIP. */
  ip: string;
  destroy(): void;
}

function inControlPlane(args: string[]): void {
  execFileSync('ip', ['netns', 'exec', controlPlane().netns, 'ip', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Makes the namespace and the link; retries another /30 when a previous test's is still there. */
export function createNode(): TierNode {
  const cp = controlPlane();
  const id = randomBytes(3).toString('hex');
  const ns = createNetns('kpn-up-node');
  const cpEnd = `n${id}`;
  try {
    execFileSync('ip', ['link', 'add', cpEnd, 'netns', cp.netns, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns.name], { stdio: ['ignore', 'ignore', 'pipe'] });
    const block = randomInt(0, 16384) * 4; // a /30 of 10.100.0.0/16
    const addr = (i: number) => `10.100.${block >> 8}.${(block & 255) + i}`;
    inControlPlane(['addr', 'add', `${addr(1)}/30`, 'dev', cpEnd]);
    inControlPlane(['link', 'set', cpEnd, 'up']);
    ns.exec('ip', ['addr', 'add', `${addr(2)}/30`, 'dev', 'eth0']);
    ns.exec('ip', ['link', 'set', 'eth0', 'up']);
    ns.exec('ip', ['route', 'add', 'default', 'via', addr(1)]);
    return { name: `node-${id}`, ns, ip: addr(2), destroy: () => ns.destroy() };
  } catch (e) {
    ns.destroy();
    throw e;
  }
}
