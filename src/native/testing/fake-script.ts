// The fake kernel's ruleset as nft script text (FakeKernel.listRuleset): written by the same
// renderer as Transaction.toNftScript, one object per line, sorted so that equal contents print
// equally whatever order they were created in.
import { elementId } from './fake-elements';
import { chainSpecOf, FakeTable } from './fake-state';
import { describeOp } from '../txn/nft-script';

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const byKey = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

function tableLines(t: FakeTable): string[] {
  const { family, name: table } = t;
  const lines = [`add table ${family} ${table}`];
  for (const c of [...t.chains.values()].sort(byName)) {
    lines.push(describeOp({ op: 'addChain', family, table, chain: chainSpecOf(c) }, Infinity));
    for (const r of c.rules) lines.push(describeOp({ op: 'addRule', family, table, chain: c.name, text: r.text, refs: { exprs: r.exprs } }, Infinity));
  }
  for (const s of [...t.sets.values()].sort(byName)) {
    const { size: _, ...spec } = s.spec;
    lines.push(describeOp({ op: 'addSet', family, table, set: s.size === undefined ? spec : { ...spec, size: s.size } }, Infinity));
    const elements = [...s.elements.values()].map((e) => [elementId(e), e] as [string, typeof e]).sort(byKey);
    for (const [, e] of elements) {
      if (!e.value || !e.spec) continue; // an interval's end element: its range was printed with the start
      lines.push(describeOp({ op: 'addElements', family, table, set: e.spec, elements: [e.value], firstAdd: false }, Infinity));
    }
  }
  return lines;
}

export function rulesetScript(tables: FakeTable[]): string {
  const sorted = [...tables].sort((a, b) => byName({ name: `${a.family} ${a.name}` }, { name: `${b.family} ${b.name}` }));
  return sorted.flatMap(tableLines).map((l) => `${l}\n`).join('');
}
