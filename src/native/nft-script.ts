// Transaction ops as nft script text: `nft -f` input (toNftScript) and error descriptions.
import { elementText } from './elements';
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

function elementsText(op: Op & { op: 'addElements' | 'deleteElements' }, from: number, to: number): string {
  const verb = op.op === 'addElements' ? 'add' : 'delete';
  const items = op.elements.slice(from, to).map((e) => elementText(op.set, e, op.op === 'addElements')).join(', ');
  return `${verb} element ${head(op)} ${op.set.name} { ${items} }`;
}

export function scriptLines(op: Op): string[] {
  if (op.op === 'addElements' || op.op === 'deleteElements') {
    const out: string[] = [];
    for (let i = 0; i < op.elements.length; i += ELEMENTS_PER_LINE) out.push(elementsText(op, i, i + ELEMENTS_PER_LINE));
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
      if (op.elements.length <= maxElements) return elementsText(op, 0, op.elements.length);
      const shown = elementsText(op, 0, maxElements);
      return `${shown.slice(0, -2)}, ... } (${op.elements.length} elements)`;
    }
  }
}
