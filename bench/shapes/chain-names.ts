// Chain names of the bench's ruleset shapes, upstream-style: a short hash (so names stay unique after
// truncation) then the readable service-port name.
import { createHash } from 'node:crypto';
import type { SynthEndpoint, SynthService } from '../lib/cluster';

function hash8(s: string): string {
  return createHash('sha256').update(s).digest('base64url').slice(0, 8).toUpperCase().replace(/[-_]/g, 'X');
}

export function servicePortName(s: SynthService): string {
  return `${s.namespace}/${s.name}/tcp/http`;
}

export function serviceChain(s: SynthService): string {
  const n = servicePortName(s);
  return `service-${hash8(n)}-${n}`;
}

export function externalChain(s: SynthService): string {
  const n = servicePortName(s);
  return `external-${hash8(n)}-${n}`;
}

export function endpointChain(s: SynthService, ep: SynthEndpoint): string {
  const n = `${servicePortName(s)}__${ep.ip}/${ep.port}`;
  return `endpoint-${hash8(n)}-${n}`;
}
