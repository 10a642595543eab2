// Each size runs in a network namespace of its own, made here and removed after: a veth link (both
// ends inside; this kernel has no dummy links) holds the node's IP (NodePorts are served on it), ephemeral ports start above the NodePorts the cluster
// allocates (the proxy listens on its health-check node ports), and the measuring process is this
// bench's own entry point re-run inside it with `ip netns exec`, answering one RESULT line.
import { join } from 'node:path';
import { createNetns, type TestNetns } from '../../test/helpers/netns';
import { printResult, runResultChild } from '../lib/result-child';
import { NODE_IP } from './cluster-state';

const RUN_JS = join(__dirname, '..', 'run.js');

export function scaleNetns(): TestNetns {
  const ns = createNetns('kpnscale');
  try {
    ns.exec('ip', ['link', 'add', 'kpn0', 'type', 'veth', 'peer', 'name', 'kpn1']);
    ns.exec('ip', ['addr', 'add', `${NODE_IP}/24`, 'dev', 'kpn0']);
    ns.exec('ip', ['link', 'set', 'kpn0', 'up']);
    ns.exec('ip', ['link', 'set', 'kpn1', 'up']);
    ns.exec('sysctl', ['-q', '-w', 'net.ipv4.ip_local_port_range=50000 65000']);
  } catch (e) {
    ns.destroy();
    throw e;
  }
  return ns;
}

/** Flushes the namespace's ruleset (so the kernel frees it now, not in a kworker during the next size) and removes it. */
export function removeNetns(ns: TestNetns): void {
  try { ns.nft('flush', 'ruleset'); } catch { /* already empty */ }
  ns.destroy();
}

/** Runs `node [nodeFlags] dist/bench/run.js <args>` inside `ns`; resolves with its RESULT line's JSON. */
export function runInNetns<T>(ns: TestNetns, nodeFlags: string[], args: string[]): Promise<T> {
  return runResultChild<T>('ip', ['netns', 'exec', ns.name, process.execPath, ...nodeFlags, RUN_JS, ...args], `${args[0]} in netns ${ns.name}`);
}

/** The child side: runs `fn` and prints its result as the RESULT line, then exits (open servers and all). */
export async function answer(fn: () => Promise<unknown>): Promise<void> {
  await printResult(await fn());
  process.exit(0);
}
