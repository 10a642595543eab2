// A slice's ports as the model keeps them: one frozen list per distinct list of (name, protocol,
// port), shared by every slice that has it. A cluster has few (its Services' target ports), and a
// list of its own per slice cost ~110 bytes (the array, its store and a port object each;
// docs/memory.md).
import { EMPTY, SharedTable } from './compact';
import type { Protocol } from './types';

export interface SlicePort {
  portName: string;
  protocol: Protocol;
  port: number;
}

/** Upper bound of the table: cleared (not grown) past it, as the shared names table. */
const SHARED_PORTS_MAX = 4096;
const sharedLists = new SharedTable<readonly SlicePort[]>(SHARED_PORTS_MAX);

/** The one kept copy of a slice's port list (frozen: shared, never mutated). */
export function sharedPorts(ports: readonly SlicePort[]): readonly SlicePort[] {
  if (ports.length === 0) return EMPTY;
  const id = JSON.stringify(ports.map((p) => [p.portName, p.protocol, p.port]));
  return sharedLists.find(id) ?? sharedLists.keep(id, Object.freeze(ports.map((p) => Object.freeze({ portName: p.portName, protocol: p.protocol, port: p.port }))));
}
