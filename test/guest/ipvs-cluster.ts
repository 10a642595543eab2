// Starting the whole proxy in IPVS mode for the guest traffic tests (test/traffic/harness.ts's
// startCluster), with the IPVS sysctls the proxy leaves alone in another namespace, and waiting
// for its first sync: in a fresh guest that sync has taken 6-25 s (later ones 0.01-1 s), well over
// the harness's 10 s waits; most likely the kernel loading, under emulation, the modules the
// first IPVS and nftables operations need (not measured one by one).
import { answers, eventually, startCluster, type Cluster, type ClusterOptions, type Proto } from '../traffic/harness';
import type { ProbeOptions } from '../helpers/topology';

export const IPVS_SYSCTLS = ['net.ipv4.vs.conntrack=1', 'net.ipv4.vs.expire_nodest_conn=1', 'net.ipv4.vs.expire_quiescent_template=1'];

export async function startIpvsCluster(o: ClusterOptions): Promise<Cluster> {
  const c = await startCluster({ ...o, configYaml: ['mode: ipvs', o.configYaml ?? ''].join('\n') });
  try {
    for (const s of IPVS_SYSCTLS) c.topo.node.exec('sysctl', ['-qw', s]);
    await firstSync(c);
  } catch (e) {
    await c.stop();
    throw e;
  }
  return c;
}

/** Resolves once the running proxy has synced successfully at least once (up to a minute). */
export async function firstSync(c: Cluster): Promise<void> {
  await eventually(async () => {
    const { values } = await c.proxy.metrics.syncProxyRulesLastTimestamp.get();
    return values.some((v) => v.value > 0);
  }, 'the proxy\'s first successful sync', 60_000);
}

/**
 * The harness's waitForAnswer/waitForError with a longer deadline: under emulation one probe (a
 * new node process in a namespace) takes seconds when the machine is busy, so ten seconds can be
 * only a few attempts.
 */
export function answerWithin(c: Cluster, proto: Proto, host: string, port: number, opts: ProbeOptions = {}): Promise<string> {
  let last = '';
  return eventually(() => {
    last = c.topo.probe(proto, host, port, 1, { timeoutMs: 500, ...opts })[0];
    return answers([last]).length > 0 ? last : '';
  }, () => `${proto} ${host}:${port} to answer (last reply: ${last})`, GUEST_WAIT_MS);
}

export function errorWithin(c: Cluster, proto: Proto, host: string, port: number, code: string, opts: ProbeOptions = {}): Promise<string> {
  let last = '';
  return eventually(() => {
    last = c.topo.probe(proto, host, port, 1, opts)[0];
    return last === `ERR ${code}` ? last : '';
  }, () => `${proto} ${host}:${port} to fail with ${code} (last reply: ${last})`, GUEST_WAIT_MS);
}

export const GUEST_WAIT_MS = 30_000;
