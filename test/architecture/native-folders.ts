// The folders of src/native (native/README.md, "The TypeScript side"), checked on the import lines of
// its files: each folder imports only the folders its row allows, and src/native/index.ts is the one
// file outside a folder. Imports leaving src/native are import-rules.ts's concern (src/native imports
// no other folder), and so is the fakes' folder being imported from outside it (rule 7).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { importsOf, listTsFiles } from './import-rules';

export const NATIVE_FOLDER_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  addon: ['conntrack', 'ipvs'],
  wire: [],
  txn: ['wire'],
  nft: ['addon', 'txn'],
  ipvs: ['addon', 'wire'],
  rtnl: ['addon', 'ipvs', 'wire'],
  conntrack: ['addon'],
  ipset: ['addon'],
  testing: ['addon', 'ipvs', 'nft', 'rtnl', 'txn'],
};

/**
 * Imports a folder may make of types only (`import type`, `export type`): the addon's signatures
 * (addon/addon-types.ts) carry ipvs/'s and conntrack/'s plain data, while those folders' sockets
 * load the addon; a value import either way would make the two folders a cycle at run time.
 */
export const TYPES_ONLY: Readonly<Record<string, readonly string[]>> = { addon: ['conntrack', 'ipvs'] };

export interface NativeSource { path: string; text: string }  // path relative to src/native

export function listNativeSources(nativeDir: string): NativeSource[] {
  return listTsFiles(nativeDir).map((p) => ({
    path: path.relative(nativeDir, p).split(path.sep).join('/'),
    text: readFileSync(p, 'utf8'),
  }));
}

/** The specifiers a file imports for their values: anything but `import type` / `export type`. */
function valueImports(file: string, text: string): Set<string> {
  const out = new Set<string>();
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      const typeOnly = c !== undefined && (c.isTypeOnly || (!c.name && c.namedBindings !== undefined
        && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.length > 0
        && c.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) out.add(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) out.add(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0])
      && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      out.add(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** One line per broken rule: a file outside the folders, an import across folders the table does not allow. */
export function nativeFolderViolations(files: readonly NativeSource[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const parts = f.path.split('/');
    if (parts.length === 1) {
      if (f.path !== 'index.ts') out.push(`${f.path}: not in a folder (only index.ts is)`);
      continue;
    }
    const folder = parts[0];
    const allowed = NATIVE_FOLDER_IMPORTS[folder];
    if (!allowed) { out.push(`${f.path}: ${folder}/ is not in the folder table (NATIVE_FOLDER_IMPORTS)`); continue; }
    const values = valueImports(f.path, f.text);
    for (const spec of importsOf(f.text)) {
      if (!spec.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(f.path), spec)).split('/');
      if (target[0] === '..' || target[0] === folder) continue;  // outside src/native (import-rules.ts), its own folder
      if (target.length === 1) { out.push(`${f.path}: imports src/native's index ("${spec}"): import the file`); continue; }
      const to = target[0];
      if (!allowed.includes(to)) out.push(`${f.path}: ${folder}/ imports ${to}/ ("${spec}")`);
      else if (TYPES_ONLY[folder]?.includes(to) && values.has(spec)) out.push(`${f.path}: ${folder}/ imports values of ${to}/ ("${spec}"), types only allowed`);
    }
  }
  return out;
}
