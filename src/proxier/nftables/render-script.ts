// The desired state of one family's table as an `nft -f` script of flat `add` commands, one
// element a line, in the order a transaction needs them (chains and sets before the rules and
// elements that refer to them). Used by tests, docs and debugging; the sync itself goes through
// the native addon. The text is src/native's (Transaction.toNftScript): one renderer for both.
import type { BaseObjects, ServiceObjects } from './desired';
import { buildIndex, winner } from './element-index';
import { ownersOf } from './plan-full';
import { BASE_OWNER, TxWriter } from './tx-writer';

export function renderDesiredScript(base: BaseObjects, services: readonly ServiceObjects[]): string {
  const f = base.family;
  const w = new TxWriter();
  w.addTable(f);
  const chains = [...base.chains, ...services.flatMap((s) => s.chains)];
  for (const c of chains) w.addChain(f, c, BASE_OWNER);
  for (const s of base.sets) w.addSet(f, s);
  for (const c of chains) w.addRules(f, c, BASE_OWNER);
  for (const claims of buildIndex(ownersOf(base, services)).values()) {
    const win = winner(claims);
    if (win) w.addElements(f, win.el.set, [win.el], BASE_OWNER);
  }
  return w.tx.toNftScript();
}
