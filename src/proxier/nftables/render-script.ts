// The desired state of one family's tables as an `nft -f` script of flat `add` commands, in the
// order a transaction needs them (chains and sets before the rules and elements that refer to
// them). Used by tests, docs and debugging; the sync itself goes through the native addon.
import type { BaseObjects, ElementDef, ServiceObjects, SetDef } from './desired';
import { buildIndex, elementValue, winner } from './element-index';
import { ownersOf } from './plan-full';
import { renderRule } from './rule-steps';

function setLine(family: string, s: SetDef): string {
  const kind = s.map ? 'map' : 'set';
  const map = Array.isArray(s.map) ? s.map.join(' . ') : s.map;
  const type = s.typeof ? `typeof ${s.typeof}` : `type ${s.key.join(' . ')}${map ? ` : ${map}` : ''}`;
  const flags = [s.interval && 'interval', s.dynamic && 'dynamic', s.timeout && 'timeout'].filter(Boolean).join(',');
  const parts = [`${type};`, flags ? `flags ${flags};` : '', s.comment ? `comment "${s.comment}";` : ''].filter(Boolean);
  return `add ${kind} ${family} ${s.table} ${s.name} { ${parts.join(' ')} }`;
}

export function elementText(el: ElementDef): string {
  const key = el.key.join(' . ');
  return el.verdict || el.data ? `${key} : ${elementValue(el)}` : key;
}

export function renderDesiredScript(base: BaseObjects, services: readonly ServiceObjects[]): string {
  const f = base.family;
  const lines = base.tables.map((t) => `add table ${f} ${t}`);
  const chains = [...base.chains, ...services.flatMap((s) => s.chains)];
  for (const c of chains) {
    const hook = c.base ? ` { type ${c.base.type} hook ${c.base.hook} priority ${c.base.priority}; }` : '';
    lines.push(`add chain ${f} ${c.table} ${c.name}${hook}`);
  }
  for (const s of base.sets) lines.push(setLine(f, s));
  for (const c of chains) for (const r of c.rules) lines.push(`add rule ${f} ${c.table} ${c.name} ${renderRule(r, f)}`);
  const index = buildIndex(ownersOf(base, services));
  for (const c of index.values()) {
    const win = winner(c);
    if (win) lines.push(`add element ${f} ${win.el.table} ${win.el.set} { ${elementText(win.el)} }`);
  }
  return lines.join('\n') + '\n';
}
