// The start-up line that says where NodePorts are served, per family, from nodePortAddresses as the
// platform defaults left it (src/config/platform-defaults.ts). The node's IPs are not known yet at
// start-up, so `primary` is described, not resolved; the proxier resolves it from the Node.
import type { KubeProxyConfiguration } from '../config';
import type { IPFamily } from '../core/types';

export interface NodePortNotice {
  level: 'info' | 'warn';
  msg: string;
  fields: Record<string, unknown>;
}

const EVERY = 'every local address of the family (no nodePortAddresses entry of it)';

function servedOn(list: readonly string[], family: IPFamily): string {
  if (list.length === 1 && list[0] === 'primary') {
    return "the node's primary IP of the family (every local address of the family if the Node has none)";
  }
  const own = list.filter((c) => c.includes(':') === (family === 'IPv6'));
  return own.length > 0 ? own.join(', ') : EVERY;
}

export function nodePortNotice(config: Pick<KubeProxyConfiguration, 'nodePortAddresses'>, families: readonly IPFamily[]): NodePortNotice {
  const list = config.nodePortAddresses;
  const perFamily = Object.fromEntries(families.map((f) => [f, servedOn(list, f)]));
  if (list.length === 0) {
    // upstream checkBadConfig (cmd/kube-proxy/app/server.go), logged as "may be incomplete or incorrect"
    return {
      level: 'warn', msg: 'Kube-proxy configuration may be incomplete or incorrect',
      fields: { err: 'nodePortAddresses is unset; NodePort connections will be accepted on all local IPs. Consider using `--nodeport-addresses primary`', nodePortsServedOn: perFamily },
    };
  }
  return { level: 'info', msg: 'NodePorts are served on', fields: { nodePortAddresses: [...list], nodePortsServedOn: perFamily } };
}
