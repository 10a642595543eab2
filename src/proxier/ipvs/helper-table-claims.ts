// Who wants each element of the helper table: an element shared by several ServicePorts (one
// VIP, one health-check port, one endpoint) is added when its first claimant appears and deleted
// when its last one goes. A partial sync stages its changes and applies them only once the
// kernel has committed.
import { elementText, type ElementDef } from './helper-table-elements';

interface Entry { def: ElementDef; owners: Set<string> }

export interface ClaimDiff {
  /** Elements that get their first claimant. */
  added: ElementDef[];
  /** Elements that lose their last claimant. */
  deleted: ElementDef[];
  /** Apply the staged claims (after a successful commit). */
  apply(): void;
}

export class ElementClaims {
  private entries = new Map<string, Entry>();
  private bySp = new Map<string, string[]>();

  get size(): number { return this.entries.size; }
  has(def: ElementDef): boolean { return this.entries.has(elementText(def)); }
  ownersOf(def: ElementDef): string[] { return [...(this.entries.get(elementText(def))?.owners ?? [])].sort(); }
  servicePorts(): string[] { return [...this.bySp.keys()]; }

  /** Claims for a fresh table (full sync); returns whether the element is new to the table. */
  claim(owner: string, def: ElementDef): boolean {
    const text = elementText(def);
    let entry = this.entries.get(text);
    const fresh = !entry;
    if (!entry) this.entries.set(text, (entry = { def, owners: new Set() }));
    entry.owners.add(owner);
    const list = this.bySp.get(owner);
    if (list) list.push(text); else this.bySp.set(owner, [text]);
    return fresh;
  }

  /** What replacing each given ServicePort's elements (an empty list: removing it) changes. */
  diff(wanted: ReadonlyMap<string, readonly ElementDef[]>): ClaimDiff {
    const staged = new Map<string, { def: ElementDef; before: number; owners: Set<string> }>();
    const touch = (text: string, def?: ElementDef) => {
      let s = staged.get(text);
      if (!s) {
        const cur = this.entries.get(text);
        s = { def: cur?.def ?? def!, before: cur?.owners.size ?? 0, owners: new Set(cur?.owners ?? []) };
        staged.set(text, s);
      }
      return s;
    };
    const newLists = new Map<string, string[]>();
    for (const [owner, defs] of wanted) {
      for (const text of this.bySp.get(owner) ?? []) touch(text).owners.delete(owner);
      const texts: string[] = [];
      for (const def of defs) {
        const text = elementText(def);
        touch(text, def).owners.add(owner);
        texts.push(text);
      }
      newLists.set(owner, texts);
    }
    const added: ElementDef[] = [];
    const deleted: ElementDef[] = [];
    for (const s of staged.values()) {
      if (s.before === 0 && s.owners.size > 0) added.push(s.def);
      if (s.before > 0 && s.owners.size === 0) deleted.push(s.def);
    }
    const apply = () => {
      for (const [text, s] of staged) {
        if (s.owners.size === 0) this.entries.delete(text);
        else this.entries.set(text, { def: s.def, owners: s.owners });
      }
      for (const [owner, texts] of newLists) {
        if (texts.length === 0) this.bySp.delete(owner); else this.bySp.set(owner, texts);
      }
    };
    return { added, deleted, apply };
  }
}
