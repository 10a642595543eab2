// The desired state of one family's table as an `nft -f` script of flat `add` commands, one
// element a line, in the order a transaction needs them (chains and sets before the rules and
// elements that refer to them). Used by tests, docs, debugging and `--dry-run`; the sync itself goes
// through the native addon. The text is src/native's (Transaction.toNftScript): one renderer for both.
import type { BaseObjects, ElementDef, ServiceObjects } from './desired';
import { ElementIndex, claimAll } from './element-index';
import { BASE_OWNER, TxWriter } from './tx-writer';

export function renderDesiredScript(base: BaseObjects, services: readonly ServiceObjects[]): string {
  return desiredWriter(base, services).tx.toNftScript();
}

/** The table, its chains and sets, then their rules, then every element, written into a new TxWriter. */
export function desiredWriter(base: BaseObjects, services: readonly ServiceObjects[]): TxWriter {
  const f = base.family;
  const w = new TxWriter();
  w.addTable(f);
  const chains = [...base.chains, ...services.flatMap((s) => s.chains)];
  for (const c of chains) w.addChain(f, c, BASE_OWNER);
  for (const s of base.sets) w.addSet(f, s);
  for (const c of chains) w.addRules(f, c, BASE_OWNER);
  for (const el of winningElements(base, services)) w.addElements(f, el.set, [el], BASE_OWNER);
  return w;
}

/** Each element once, the first claimant's (base first, then the ServicePorts in order), as a full sync writes them. */
export function winningElements(base: BaseObjects, services: readonly ServiceObjects[]): ElementDef[] {
  const index = new ElementIndex();
  const out: ElementDef[] = [];
  for (const { key, elements } of [{ key: BASE_OWNER, elements: base.elements }, ...services]) out.push(...claimAll(index, key, elements));
  return out;
}
