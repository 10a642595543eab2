// Reading `ipvsadm -Ln` (and `--stats`) output in the IPVS guest tests: one virtual service's block.

/** One virtual service's block of `ipvsadm -Ln`: its line (starting with `header`) and its real servers' lines. */
export function section(table: string, header: string): string {
  const lines = table.split('\n');
  const start = lines.findIndex((l) => l.startsWith(header));
  if (start < 0) return '';
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('  ->'));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** The `address:port` of each real server in a section() of `ipvsadm -Ln`, sorted. */
export function realServers(block: string): string[] {
  return [...block.matchAll(/-> (\S+)\s+Masq/g)].map((m) => m[1]).sort();
}

/** `address:port weight` of each real server in a section() of `ipvsadm -Ln`, sorted. */
export function weights(block: string): string[] {
  return [...block.matchAll(/-> (\S+)\s+Masq\s+(\d+)/g)].map((m) => `${m[1]} ${m[2]}`).sort();
}
