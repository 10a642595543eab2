// native/README.md's two folder tables and the tables the checks enforce must say the same thing:
// the C++ layers' "uses" column and LAYER_INCLUDES (native-layers.ts), src/native's "imports" column
// and NATIVE_FOLDER_IMPORTS (native-folders.ts). So the map a reader follows cannot drift from the code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { LAYER_INCLUDES } from './native-layers';
import { NATIVE_FOLDER_IMPORTS, TYPES_ONLY } from './native-folders';

const README = path.resolve(__dirname, '../../../native/README.md');

/** The folder rows (`| \`x/\` | ... |`) of the first table under the heading that starts with `heading`. */
export function folderRows(markdown: string, heading: string): Map<string, string[]> {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.startsWith(heading));
  assert.ok(start >= 0, `no heading "${heading}"`);
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,3} /.test(line)) break;
    if (rows.size > 0 && !line.startsWith('|')) break;
    const m = /^\| `([a-z]+)\/` \|/.exec(line);
    if (m) rows.set(m[1], line.replace(/^\|\s*/, '').replace(/\s*\|\s*$/, '').split(/\s+\|\s+/));
  }
  return rows;
}

/** The folders a cell names (`nft/`, `netlink/builder.*`), '-' for none. */
export function foldersIn(cell: string): string[] {
  if (cell.trim() === '-') return [];
  return [...new Set([...cell.matchAll(/`([a-z]+)\/[^`]*`/g)].map((m) => m[1]))].sort();
}

const sorted = (xs: readonly string[]) => [...xs].sort();

test("native/README.md's layer table is LAYER_INCLUDES", () => {
  const rows = folderRows(readFileSync(README, 'utf8'), '## Layers');
  assert.deepEqual(sorted([...rows.keys()]), sorted(Object.keys(LAYER_INCLUDES)), 'the same layers in both tables');
  for (const [layer, cells] of rows) {
    const uses = cells[cells.length - 1];
    const documented = uses === 'every layer below' ? Object.keys(LAYER_INCLUDES) : [...foldersIn(uses), layer];
    assert.deepEqual(sorted([...new Set(documented)]), sorted(LAYER_INCLUDES[layer]), `${layer}/: the README says "${uses}"`);
  }
});

test("native/README.md's src/native table is NATIVE_FOLDER_IMPORTS, and mirrors real layers", () => {
  const rows = folderRows(readFileSync(README, 'utf8'), '## The TypeScript side');
  assert.deepEqual(sorted([...rows.keys()]), sorted(Object.keys(NATIVE_FOLDER_IMPORTS)), 'the same folders in both tables');
  for (const [folder, cells] of rows) {
    assert.equal(cells.length, 4, `${folder}/: folder, holds, mirrors, imports`);
    const [, , mirrors, imports] = cells;
    assert.deepEqual(foldersIn(imports), sorted(NATIVE_FOLDER_IMPORTS[folder]), `src/native/${folder}/: the README says "${imports}"`);
    assert.equal(/types only/.test(imports), TYPES_ONLY[folder] !== undefined, `src/native/${folder}/: "types only" in the README and in TYPES_ONLY`);
    for (const layer of foldersIn(mirrors)) assert.ok(LAYER_INCLUDES[layer], `src/native/${folder}/ mirrors ${layer}/, which native/ does not have`);
  }
});

test('the table reader sees a changed cell', () => {
  const md = '## Layers\n\ntext\n\n| folder | holds | uses |\n|---|---|---|\n| `nft/` | x | `txn/`, `netlink/socket.h` |\n| `txn/` | y | - |\n\nafter\n| `ipvs/` | z | - |\n';
  const rows = folderRows(md, '## Layers');
  assert.deepEqual([...rows.keys()], ['nft', 'txn']);
  assert.deepEqual(foldersIn(rows.get('nft')![2]), ['netlink', 'txn']);
  assert.deepEqual(foldersIn(rows.get('txn')![2]), []);
});
