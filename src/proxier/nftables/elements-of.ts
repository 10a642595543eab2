// The objects a ServicePort wants before and after a partial sync. The state keeps no element
// objects, only the model objects each ServicePort was compiled from (state.ts ServiceSource), so
// what the kernel holds for one is found by compiling them again: compileService is a pure function
// of the ServicePort, its endpoints and the family's context, and the context does not change
// between full syncs.
import { compileService } from './compile-service';
import type { BaseObjects, ElementDef, ServiceObjects } from './desired';
import { byEntry, type EntryElements } from './element-index';
import type { FamilyState } from './state';
import { BASE_OWNER } from './tx-writer';

type BaseElements = Pick<BaseObjects, 'elements'>;

export class ElementsOf {
  private readonly before = new Map<string, ServiceObjects | null>();
  private readonly after = new Map<string, ServiceObjects | null>();
  /** Each looked-up object's elements by set and index entry, made on first use. */
  private readonly entries = new Map<ServiceObjects | BaseElements, Map<string, EntryElements>>();

  constructor(private readonly state: FamilyState) {}

  /** What the kernel holds for ServicePort `key`, or null when it holds nothing. */
  previous(key: string): ServiceObjects | null {
    let obj = this.before.get(key);
    if (obj !== undefined) return obj;
    const src = this.state.services.get(key);
    try {
      obj = src ? compileService(src.sp, src.eps, this.state.ctx) : null;
    } catch (e) {
      // It compiled when it was applied, and compiling is pure: the state is not what it says.
      throw new Error(`nftables state: ServicePort ${key} no longer compiles as it did when applied: ${(e as Error).message}`);
    }
    this.before.set(key, obj);
    return obj;
  }

  /** What this sync gives ServicePort `key` (null: nothing); ServicePorts not given keep their previous objects. */
  setNext(key: string, obj: ServiceObjects | null): void {
    this.after.set(key, obj);
  }

  /**
   * The elements `owner` wants in the touched index entry, before (`prev`) or after (`next`) this
   * sync: one element, or an endpoint map's slots of one destination. A key it wants twice is there
   * once, with its last element, as a full sync writes it.
   */
  at(owner: string, when: 'prev' | 'next', t: { set: string; entry: string }): ElementDef[] {
    const obj = owner === BASE_OWNER ? this.state.base : when === 'next' && this.after.has(owner) ? this.after.get(owner) : this.previous(owner);
    const els = obj ? this.indexed(obj).get(`${t.set}\u0000${t.entry}`)?.els : undefined;
    if (!els) throw new Error(`nftables state: ${owner || 'the base'} is recorded as wanting ${t.set} { ${t.entry} } but does not`);
    return els;
  }

  /** The object's elements by index entry, made once per object (IndexEdit reads them too). */
  indexed(obj: ServiceObjects | BaseElements): Map<string, EntryElements> {
    let m = this.entries.get(obj);
    if (!m) this.entries.set(obj, m = byEntry(obj.elements));
    return m;
  }
}
