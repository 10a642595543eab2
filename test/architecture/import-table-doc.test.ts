// docs/architecture.md's folder table and the table the import check enforces (FOLDER_IMPORTS) must
// say the same thing, so the page a newcomer reads first cannot drift from the code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { FOLDER_IMPORTS } from './import-rules';

const DOC = path.resolve(__dirname, '../../../docs/architecture.md');

/** Folder -> its imports cell, for the table rows naming src/ folders (several per row allowed). */
export function documentedImports(markdown: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('| `src/')) continue;
    const cells = line.split(' | ');
    const imports = cells[cells.length - 1].replace(/\s*\|\s*$/, '').trim();
    for (const m of cells[0].matchAll(/`src\/([a-z0-9.]+)(\/<mode>)?\/?`/g)) {
      rows.set(m[1] === 'main.ts' ? 'main' : m[1], imports);
    }
  }
  return rows;
}

function asList(cell: string): readonly string[] | 'all' {
  if (cell === 'all') return 'all';
  if (cell === '-') return [];
  return cell.split(',').map((s) => s.trim()).sort();
}

test("docs/architecture.md's import table is the one the import check enforces", () => {
  const doc = documentedImports(readFileSync(DOC, 'utf8'));
  assert.deepEqual([...doc.keys()].sort(), Object.keys(FOLDER_IMPORTS).sort(), 'the same folders in both tables');
  for (const [folder, allowed] of Object.entries(FOLDER_IMPORTS)) {
    const cell = doc.get(folder)!;
    if (folder === 'config') {
      assert.match(cell, /modes\.ts/, 'src/config imports its modes only from modes.ts');
      continue;
    }
    const want = allowed === 'all' ? 'all' : [...allowed].sort();
    assert.deepEqual(asList(cell), want, `src/${folder}: the doc says "${cell}"`);
  }
});

test('the doc-table reader sees a changed cell', () => {
  const rows = documentedImports('| `src/health/`, `src/metrics/` | x | base, http, k8s |\n| `src/proxier/<mode>/` | y | core |\n');
  assert.deepEqual([...rows.entries()], [['health', 'base, http, k8s'], ['metrics', 'base, http, k8s'], ['proxier', 'core']]);
});
