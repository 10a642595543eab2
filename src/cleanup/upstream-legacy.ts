// iptables-legacy (x_tables) is out of nftables netlink's reach: --cleanup only detects it and
// prints the commands that remove upstream's chains there. /proc/net/ip_tables_names (and
// ip6_tables_names) list the legacy tables instantiated in the reading process's network
// namespace; a table there may hold kube-proxy's chains, which only iptables-legacy-save shows.
// The commands keep every line of the saved tables but upstream's chain declarations, the rules
// in upstream's chains and the rules jumping to them, then restore the tables from that.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LegacyTables {
  ipv4: string[];
  ipv6: string[];
}

/** procNet: the namespace's /proc/net (/proc/<pid>/net for another namespace). */
export function legacyTables(procNet = '/proc/net'): LegacyTables {
  return { ipv4: tableNames(join(procNet, 'ip_tables_names')), ipv6: tableNames(join(procNet, 'ip6_tables_names')) };
}

function tableNames(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return []; // no ip_tables module: no legacy tables
  }
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '').sort();
}

// Upstream's chain names (upstream-names.ts) as one extended regular expression. nat's
// KUBE-FIREWALL is left out: in filter the name is kubelet's, and a line does not say its table.
const CHAIN = '(KUBE-(SERVICES|EXTERNAL-SERVICES|NODEPORTS|POSTROUTING|MARK-MASQ|PROXY-CANARY|FORWARD|PROXY-FIREWALL'
  + '|NODE-PORT|LOAD-BALANCER|SOURCE-RANGES-FIREWALL|IPVS-FILTER|IPVS-OUT-FILTER)|KUBE-(SVC|SVL|EXT|FW|SEP|XLB)-[A-Z0-9]+)';
const DROP_LINES = `^:${CHAIN} |^-A ${CHAIN} | -[jg] ${CHAIN}( |$)`;

/** The shell commands, one per family that has legacy tables. */
export function legacyCleanupCommands(t: LegacyTables): string[] {
  const out: string[] = [];
  if (t.ipv4.length > 0) out.push(command('iptables'));
  if (t.ipv6.length > 0) out.push(command('ip6tables'));
  return out;
}

function command(tool: 'iptables' | 'ip6tables'): string {
  return `${tool}-legacy-save | grep -v -E '${DROP_LINES}' | ${tool}-legacy-restore`;
}
