// What the native conntrack delete is asked for: flows of one family and protocol whose original
// destination and/or reply source match. Every field given must match (AND); at least one of the
// four address/port fields is required, so a filter never means "every UDP flow".
export type ConntrackProtocol = 'udp' | 'tcp' | 'sctp';

export interface ConntrackFilter {
  family: 4 | 6;
  protocol: ConntrackProtocol;
  /** Original-direction destination: the Service IP the client sent to. */
  origDst?: string;
  /** Original-direction destination port: the Service port, or the NodePort. */
  origDstPort?: number;
  /** Reply-direction source: the endpoint the flow was DNATed to. */
  replySrc?: string;
  replySrcPort?: number;
  /**
   * true: only flows that were DNATed; false: only flows that were not (sent where no rule
   * translated them, e.g. before the Service's rules existed); absent: both.
   */
  dnat?: boolean;
}

/** A stable text form, for de-duplication and logs. */
export function filterKey(f: ConntrackFilter): string {
  const dnat = f.dnat === undefined ? '*' : f.dnat ? 'dnat' : 'no-dnat';
  return [f.family, f.protocol, f.origDst ?? '*', f.origDstPort ?? '*', f.replySrc ?? '*', f.replySrcPort ?? '*', dnat].join(' ');
}
