// Waiting on packets at a tier node (traffic-node.ts), as test/traffic/harness.ts's waitForAnswer
// does for the host tests' cluster: the test knows a change was applied when a request answers.
import type { ProbeOptions } from '../helpers/topology';
import { answers, eventually, type Proto } from '../traffic/harness';
import type { TrafficNode } from './traffic-node';

/**
 * Probes once per poll until an endpoint answers; returns that answer. A poll waits 500 ms for a
 * reply unless told otherwise (an answer takes milliseconds; only unprogrammed probes wait it out).
 */
export function waitFor(tn: TrafficNode, proto: Proto, host: string, port: number, opts: ProbeOptions = {}, timeoutMs = 15_000): Promise<string> {
  let last = '';
  return eventually(() => {
    last = tn.topo.probe(proto, host, port, 1, { timeoutMs: 500, ...opts })[0];
    return answers([last]).length > 0 ? last : '';
  }, () => `${proto} ${host}:${port} to answer (last reply: ${last})`, timeoutMs);
}
