// The snapshot's ServicePorts as served: the tracker's map, with the few ServicePorts that lost a key
// to another (core/address-ownership) replaced by their restricted copies. A view, not a copy: at
// 44k Services a second map would cost megabytes for a handful of differences.
import type { ServicePort } from './types';

export class ServedServices implements ReadonlyMap<string, ServicePort> {
  constructor(
    private readonly raw: ReadonlyMap<string, ServicePort>,
    private readonly restricted: ReadonlyMap<string, ServicePort>,
  ) {}

  get size(): number {
    return this.raw.size;
  }

  get(key: string): ServicePort | undefined {
    return this.restricted.get(key) ?? this.raw.get(key);
  }

  has(key: string): boolean {
    return this.raw.has(key);
  }

  *entries(): MapIterator<[string, ServicePort]> {
    for (const [key, sp] of this.raw) yield [key, this.restricted.get(key) ?? sp];
  }

  keys(): MapIterator<string> {
    return this.raw.keys();
  }

  *values(): MapIterator<ServicePort> {
    for (const [, sp] of this.entries()) yield sp;
  }

  [Symbol.iterator](): MapIterator<[string, ServicePort]> {
    return this.entries();
  }

  forEach(cb: (value: ServicePort, key: string, map: ReadonlyMap<string, ServicePort>) => void, thisArg?: unknown): void {
    for (const [key, sp] of this.entries()) cb.call(thisArg, sp, key, this);
  }
}
