// Counts of what an `nft -f` script of ours (Transaction.toNftScript: one command a line) adds,
// changes or removes, for `--dry-run`'s closing comment line. Pure text in, numbers out.

export interface ScriptCounts {
  chains: number;
  /** Of `chains`, those with a hook. */
  baseChains: number;
  sets: number;
  maps: number;
  rules: number;
  elements: number;
}

/** The elements a `... element ... { a, b }` line names. */
function elementsOn(line: string): number {
  const open = line.indexOf('{');
  const body = line.slice(open + 1, line.lastIndexOf('}')).trim();
  return open < 0 || body === '' ? 0 : body.split(', ').length;
}

/** What the script's `add` lines create. */
export function countAdded(script: string): ScriptCounts {
  const c: ScriptCounts = { chains: 0, baseChains: 0, sets: 0, maps: 0, rules: 0, elements: 0 };
  for (const line of script.split('\n')) {
    if (line.startsWith('add chain ')) {
      c.chains++;
      if (line.includes('{ type ')) c.baseChains++;
    } else if (line.startsWith('add set ')) c.sets++;
    else if (line.startsWith('add map ')) c.maps++;
    else if (line.startsWith('add rule ')) c.rules++;
    else if (line.startsWith('add element ')) c.elements += elementsOn(line);
  }
  return c;
}

export interface ChangeCounts { add: number; delete: number; flush: number }

/** One change a command, an element a change (`add table` included, when the table is absent). */
export function countChanges(script: string): ChangeCounts {
  const c: ChangeCounts = { add: 0, delete: 0, flush: 0 };
  for (const line of script.split('\n')) {
    const verb = line.slice(0, line.indexOf(' '));
    if (verb !== 'add' && verb !== 'delete' && verb !== 'flush') continue;
    c[verb] += / element /.test(line) ? elementsOn(line) : 1;
  }
  return c;
}
