// Feeds the synthetic cluster to the real model (src/core ProxyState) as the informers would: one
// V1Service and one V1EndpointSlice event per Service. The sync loop takes the changes from it.
import { ProxyState } from '../../src/core/proxy-state';
import type { ObjectRef } from '../../src/core/types';
import { SynthService } from '../lib/cluster';
import { BENCH_NODE, serviceObject, sliceObject } from './k8s-objects';

export class ModelDriver {
  readonly kind = 'src/core ProxyState fed V1Service/V1EndpointSlice objects';
  readonly state: ProxyState;
  readonly warnings: string[] = [];
  private readonly generation = new Map<number, number>();

  constructor() {
    this.state = new ProxyState({
      nodeName: BENCH_NODE,
      ipFamilies: ['IPv4'],
      log: { warn: (obj, msg) => { if (this.warnings.length < 20) this.warnings.push(`${refText(obj as ObjectRef)}: ${msg}`); } },
      startTime: new Date(0),
    });
  }

  /** Adds a Service with its endpoints, or replaces them. */
  upsert(s: SynthService): void {
    const prev = this.generation.get(s.index);
    const kind = prev === undefined ? 'add' : 'update';
    const gen = (prev ?? -1) + 1;
    this.generation.set(s.index, gen);
    this.state.onService(kind, serviceObject(s));
    this.state.onEndpointSlice(kind, sliceObject(s, gen));
  }

  /** Deletes a Service and its EndpointSlice (both reach the model before the next sync). */
  remove(s: SynthService): void {
    const gen = this.generation.get(s.index);
    if (gen === undefined) throw new Error(`Service ${s.index} was never added`);
    this.generation.delete(s.index);
    this.state.onEndpointSlice('delete', sliceObject(s, gen));
    this.state.onService('delete', serviceObject(s));
  }
}

const refText = (r: ObjectRef): string => `${r.kind} ${r.namespace}/${r.name}`;
