// Transaction ops as nft script text: `nft -f` input (toNftScript) and error descriptions.
import { Element, elementText } from './elements';
import { scriptName } from './names';
import { Op } from './ops';
import { setScriptBody } from './set-spec';

const ELEMENTS_PER_LINE = 1000;

function head(op: Op): string {
  return `${op.family} ${scriptName(op.table)}`;
}

function chainText(op: Op & { op: 'addChain' }): string {
  const b = op.chain.base;
  const verb = op.create ? 'create' : 'add';
  const h = `${verb} chain ${head(op)} ${scriptName(op.chain.name)}`;
  if (!b) return h;
  return `${h} { type ${b.type} hook ${b.hook} priority ${b.priority};${b.policy ? ` policy ${b.policy};` : ''} }`;
}

type ElementsOp = Op & { op: 'addElements' | 'deleteElements' };

/** `els`: the op's elements, read once (an op from an ElementBatch decodes them on every read). */
function elementsText(op: ElementsOp, els: readonly Element[], from: number, to: number): string {
  const verb = op.op === 'addElements' ? 'add' : 'delete';
  const items = els.slice(from, to).map((e) => elementText(op.set, e, op.op === 'addElements')).join(', ');
  return `${verb} element ${head(op)} ${op.set.name} { ${items} }`;
}

export function scriptLines(op: Op): string[] {
  if (op.op === 'addElements' || op.op === 'deleteElements') {
    const out: string[] = [];
    const els = op.elements;
    for (let i = 0; i < els.length; i += ELEMENTS_PER_LINE) out.push(elementsText(op, els, i, i + ELEMENTS_PER_LINE));
    return out;
  }
  return [describeOp(op, Infinity)];
}

export function describeOp(op: Op, maxElements: number): string {
  switch (op.op) {
    case 'addTable': return `${op.create ? 'create' : 'add'} table ${head(op)}`;
    case 'deleteTable': return `delete table ${head(op)}`;
    case 'flushTable': return `flush table ${head(op)}`;
    case 'addChain': return chainText(op);
    case 'flushChain': return `flush chain ${head(op)} ${scriptName(op.chain)}`;
    case 'deleteChain': return `delete chain ${head(op)} ${scriptName(op.chain)}`;
    case 'addRule': return `add rule ${head(op)} ${scriptName(op.chain)} ${op.text}`;
    case 'deleteRule': return `delete rule ${head(op)} ${scriptName(op.chain)} handle ${op.handle}`;
    case 'addSet': return `${op.create ? 'create' : 'add'} ${op.set.map ? 'map' : 'set'} ${head(op)} ${op.set.name} ${setScriptBody(op.set)}`;
    case 'flushSet': return `flush ${op.isMap ? 'map' : 'set'} ${head(op)} ${op.set}`;
    case 'deleteSet': return `delete ${op.isMap ? 'map' : 'set'} ${head(op)} ${op.set}`;
    case 'addElements':
    case 'deleteElements': {
      const els = op.batch ? op.batch.first(maxElements + 1) : op.elements;
      if (els.length <= maxElements) return elementsText(op, els, 0, els.length);
      const shown = elementsText(op, els, 0, maxElements);
      return `${shown.slice(0, -2)}, ... } (${op.batch?.count ?? els.length} elements)`;
    }
  }
}
