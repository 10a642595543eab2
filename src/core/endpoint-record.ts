// Endpoint objects as the model keeps them: hundreds of thousands at scale (6 per Service, and a
// copy per port of a multi-port slice). Two things keep each small (docs/memory.md):
// - node and zone names, and hint lists, are shared: a name repeats on every endpoint of its node,
//   and JSON.parse gives each occurrence its own string;
// - the names present are written in the object literal, not added after it: a property added to
//   an object after its literal costs the object a separate property store (~40 bytes).
import { SharedTable } from './compact';
import type { Endpoint } from './types';

/** An endpoint as its slice keeps it: with the slice's first port, or none when the slice has no port. */
export type SliceEndpoint = Omit<Endpoint, 'port'> & { port?: number };

/** Upper bound of the shared names table: a cluster's nodes and zones; cleared (not grown) past it. */
const SHARED_NAMES_MAX = 65536;
const sharedNames = new SharedTable<string>(SHARED_NAMES_MAX);

/** The one copy of a node or zone name the model keeps. */
export function sharedName(name: string): string {
  return sharedNames.find(name) ?? sharedNames.keep(name, name);
}

const sharedLists = new SharedTable<readonly string[]>(SHARED_NAMES_MAX);

/**
 * The one copy of a hint list (sorted, unique names; frozen: shared, never mutated). Every endpoint
 * in a zone carries the same zone hints, and each used to keep its own list (56 bytes).
 */
export function sharedNameList(names: readonly string[]): readonly string[] {
  const id = JSON.stringify(names);
  return sharedLists.find(id) ?? sharedLists.keep(id, Object.freeze(names.map(sharedName)));
}

/** What every endpoint has, and the names it may have. */
export type EndpointCore = Pick<Endpoint, 'ip' | 'ready' | 'serving' | 'terminating' | 'isLocal' | 'nodeName' | 'zone'>;

/**
 * The endpoint, with its port when given; absent names stay absent (not `undefined`). The hints
 * (set by few Services) are the caller's to add.
 */
export function endpointRecord(c: EndpointCore, port: number | undefined): SliceEndpoint {
  const { ip, ready, serving, terminating, isLocal } = c;
  const nodeName = c.nodeName === undefined ? undefined : sharedName(c.nodeName);
  const zone = c.zone === undefined ? undefined : sharedName(c.zone);
  if (port === undefined) {
    if (nodeName !== undefined && zone !== undefined) return { ip, ready, serving, terminating, isLocal, nodeName, zone };
    if (nodeName !== undefined) return { ip, ready, serving, terminating, isLocal, nodeName };
    if (zone !== undefined) return { ip, ready, serving, terminating, isLocal, zone };
    return { ip, ready, serving, terminating, isLocal };
  }
  if (nodeName !== undefined && zone !== undefined) return { ip, port, ready, serving, terminating, isLocal, nodeName, zone };
  if (nodeName !== undefined) return { ip, port, ready, serving, terminating, isLocal, nodeName };
  if (zone !== undefined) return { ip, port, ready, serving, terminating, isLocal, zone };
  return { ip, port, ready, serving, terminating, isLocal };
}
