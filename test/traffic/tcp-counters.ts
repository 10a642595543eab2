// The kernel's TCP counters of one network namespace (/proc/net/snmp and /proc/net/netstat as a
// process in that namespace sees them): retransmissions show packets lost on the way, which a
// client's retry can otherwise hide.
import type { TestNetns } from '../helpers/netns';

export interface TcpCounters {
  /** SYNs sent again (a SYN or its SYN-ACK was lost). */
  synRetransmits: number;
  /** Every segment sent again. */
  retransmittedSegments: number;
  /** Resets sent. */
  resetsSent: number;
}

/** Reads one "Prefix: names" / "Prefix: values" pair of lines into a map. */
function table(text: string, prefix: string): Map<string, number> {
  const lines = text.split('\n').filter((l) => l.startsWith(`${prefix}:`));
  if (lines.length < 2) throw new Error(`no ${prefix} lines`);
  const names = lines[0].split(/\s+/).slice(1);
  const values = lines[1].split(/\s+/).slice(1).map(Number);
  return new Map(names.map((n, i) => [n, values[i]]));
}

function counter(m: Map<string, number>, name: string): number {
  const v = m.get(name);
  if (v === undefined || !Number.isFinite(v)) throw new Error(`no TCP counter ${name}`);
  return v;
}

export function tcpCounters(ns: TestNetns): TcpCounters {
  const tcp = table(ns.exec('cat', ['/proc/net/snmp']), 'Tcp');
  const ext = table(ns.exec('cat', ['/proc/net/netstat']), 'TcpExt');
  return {
    synRetransmits: counter(ext, 'TCPSynRetrans'),
    retransmittedSegments: counter(tcp, 'RetransSegs'),
    resetsSent: counter(tcp, 'OutRsts'),
  };
}

export function counterDelta(before: TcpCounters, after: TcpCounters): TcpCounters {
  return {
    synRetransmits: after.synRetransmits - before.synRetransmits,
    retransmittedSegments: after.retransmittedSegments - before.retransmittedSegments,
    resetsSent: after.resetsSent - before.resetsSent,
  };
}
