// A full sync's elements, encoded the moment they are claimed (src/native ElementBatch), so the
// sync never holds the cluster's elements as objects: each ServicePort's compiled elements are
// garbage as soon as it has been claimed. One op per set, or, on the retry that looks for a
// refused ServicePort, one op per set and ServicePort. Interval sets (nodeport-ips, a handful of
// CIDRs) keep their elements as objects: the builder sorts and expands them.
import { ElementBatch } from '../../native/txn/element-batch';
import type { ElementDef, NftFamily, SetDef } from './desired';
import { MIXED_OWNER, TxWriter, nativeSetSpec, owned } from './tx-writer';

interface Group {
  set: string;
  /** The ServicePort whose elements the op carries, or MIXED_OWNER. */
  owner: string;
  batch?: ElementBatch;
  list?: ElementDef[];
}

export class ElementSink {
  private readonly groups = new Map<string, Group>();
  private readonly specs = new Map<string, SetDef>();

  /** `specOf`: the set an element names; `opPerOwner`: one op per set and ServicePort. */
  constructor(private readonly specOf: (set: string) => SetDef, private readonly opPerOwner: boolean) {}

  /** Encodes `owner`'s element into its set's op; a refused one throws OwnedBuildError (for a ServicePort). */
  add(owner: string, el: ElementDef): void {
    const g = this.group(el.set, owner);
    if (g.owner !== owner) g.owner = MIXED_OWNER;
    if (g.list) g.list.push(el);
    else owned(owner, () => g.batch!.add(el));
  }

  private group(set: string, owner: string): Group {
    const id = this.opPerOwner ? `${set}\u0000${owner}` : set;
    let g = this.groups.get(id);
    if (g) return g;
    let spec = this.specs.get(set);
    if (!spec) this.specs.set(set, spec = this.specOf(set));
    g = spec.interval ? { set, owner, list: [] } : { set, owner, batch: new ElementBatch(nativeSetSpec(spec)) };
    this.groups.set(id, g);
    return g;
  }

  /** The sets the elements not yet written name (those `which` takes). */
  setNames(which: (set: SetDef) => boolean = everySet): Set<string> {
    const names = new Set<string>();
    for (const g of this.groups.values()) if (which(this.specs.get(g.set)!)) names.add(g.set);
    return names;
  }

  /** Bytes the encoded elements will add to the transaction (interval sets' aside; those `which` takes). */
  byteLength(which: (set: SetDef) => boolean = everySet): number {
    let bytes = 0;
    for (const g of this.groups.values()) if (g.batch && which(this.specs.get(g.set)!)) bytes += g.batch.byteLength + g.set.length;
    return bytes;
  }

  /**
   * The ops (those `which` takes), in the order their sets (or set and ServicePort) were first
   * claimed; each batch is let go once copied.
   */
  writeTo(w: TxWriter, family: NftFamily, which: (set: SetDef) => boolean = everySet): void {
    w.tx.reserve(this.byteLength(which));
    for (const [id, g] of this.groups) {
      if (!which(this.specs.get(g.set)!)) continue;
      if (g.batch) w.addElementBatch(family, g.batch, g.owner);
      else w.addElements(family, g.set, g.list!, g.owner);
      this.groups.delete(id);
    }
  }
}

/** The sets filter that takes every set. */
const everySet = (): boolean => true;
