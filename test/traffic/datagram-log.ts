// What a udp-stream-client.js run saw, as data: each datagram with when it was sent and what came
// of it (an endpoint's answer, an ICMP reject, or nothing), and the questions the UDP tests ask of it.
// Pure: parses the client's lines; times are ms since the epoch on this machine's clock.

export interface Datagram {
  seq: number;
  sentAt: number;
  /** The endpoint (pod name) that answered, and when the answer arrived. */
  answeredBy?: string;
  answeredAt?: number;
  /** When the ICMP port unreachable for it surfaced (ECONNREFUSED on the connected socket). */
  refusedAt?: number;
}

export interface DatagramLog {
  datagrams: Datagram[];
  /** Socket errors other than ECONNREFUSED, and ECONNREFUSED with no datagram to blame. */
  otherErrors: string[];
  /** How the client ended: the last datagram had its outcome, or it stopped waiting (late answers are missing). */
  end?: 'settled' | 'gave-up';
}

interface Event { kind: 'S' | 'R' | 'E' | 'F'; seq: number; pod: string; code: string; at: number }

function parseLine(line: string): Event | undefined {
  const f = line.split(' ');
  const at = Number(f[f.length - 1]);
  switch (f[0]) {
    case 'S': return { kind: 'S', seq: Number(f[1]), pod: '', code: '', at };
    case 'R': return { kind: 'R', seq: Number(f[1]), pod: f[2], code: '', at };
    case 'E': return { kind: 'E', seq: -1, pod: '', code: f[1], at };
    case 'F': return { kind: 'F', seq: Number(f[1]), pod: '', code: f[2], at };
    default: return undefined;
  }
}

/** The latest datagram sent at or before `at` that has no outcome yet. */
function latestOpen(datagrams: Datagram[], at: number): Datagram | undefined {
  for (let i = datagrams.length - 1; i >= 0; i--) {
    const d = datagrams[i];
    if (d.sentAt <= at && d.answeredBy === undefined && d.refusedAt === undefined) return d;
  }
  return undefined;
}

/**
 * A connected UDP socket reports an ICMP error once, on the next read or send after it arrived, so
 * an ECONNREFUSED (read error "E", or a failed send "F") belongs to the latest datagram sent before it.
 * A failed send sent nothing: it is no datagram.
 */
export function parseDatagramLog(lines: readonly string[]): DatagramLog {
  const events = lines.map(parseLine).filter((e): e is Event => e !== undefined && Number.isFinite(e.at));
  // "S" carries the time of the send call but is printed later: order by time, sends first on ties.
  events.sort((a, b) => a.at - b.at || (a.kind === 'S' ? -1 : 0) - (b.kind === 'S' ? -1 : 0));
  const bySeq = new Map<number, Datagram>();
  const datagrams: Datagram[] = [];
  const otherErrors: string[] = [];
  const answers: Event[] = [];
  for (const e of events) {
    if (e.kind === 'S') {
      const d: Datagram = { seq: e.seq, sentAt: e.at };
      bySeq.set(e.seq, d);
      datagrams.push(d);
    } else if (e.kind === 'R') {
      answers.push(e);
    } else if (e.code === 'ECONNREFUSED') {
      const d = latestOpen(datagrams, e.at);
      if (d) d.refusedAt = e.at;
      else otherErrors.push(`${e.kind} ${e.code} at ${e.at} with no datagram to blame`);
    } else {
      otherErrors.push(`${e.kind} ${e.code} at ${e.at}`);
    }
  }
  for (const r of answers) {
    const d = bySeq.get(r.seq);
    if (d) Object.assign(d, { answeredBy: r.pod, answeredAt: r.at });
    else otherErrors.push(`answer from ${r.pod} for unknown datagram ${r.seq}`);
  }
  const end = lines.find((l) => l.startsWith('END '))?.slice(4);
  return { datagrams, otherErrors, ...(end === 'settled' || end === 'gave-up' ? { end } : {}) };
}

/** The last answer `pod` gave, or undefined if it gave none. */
export function lastAnswerFrom(log: DatagramLog, pod: string): Datagram | undefined {
  return log.datagrams.filter((d) => d.answeredBy === pod).at(-1);
}

/** The first answer `pod` gave to a datagram sent at or after `since`. */
export function firstAnswerFrom(log: DatagramLog, pod: string, since: number): Datagram | undefined {
  return log.datagrams.find((d) => d.answeredBy === pod && d.sentAt >= since);
}

/** Datagrams sent in [from, to). */
export function sentBetween(log: DatagramLog, from: number, to: number): Datagram[] {
  return log.datagrams.filter((d) => d.sentAt >= from && d.sentAt < to);
}

/** "pod0" / "refused" / "silent": what came of a datagram. */
export function outcome(d: Datagram): string {
  return d.answeredBy ?? (d.refusedAt !== undefined ? 'refused' : 'silent');
}

/** Outcomes counted, e.g. { pod0: 40, refused: 12 }: for assertion messages and diagnostics. */
export function outcomeCounts(ds: readonly Datagram[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const d of ds) counts[outcome(d)] = (counts[outcome(d)] ?? 0) + 1;
  return counts;
}
