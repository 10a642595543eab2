// The import boundaries between the source folders, checked on a real tree of .ts files:
//  1. a proxy mode (src/proxier/<mode>/) never imports another mode's folder;
//  2. src/core and src/runner never import src/proxier;
//  3. src/config imports a mode only through src/config/modes.ts, and only that mode's config.ts;
//  4. a mode's config.ts is a leaf: it imports only the config contracts, so composing the sections
//     never pulls a proxier's runtime (or the native addon) into the configuration core;
//  5. src/config imports nothing else from src/ (besides rule 3);
//  6. every other folder imports only what FOLDER_IMPORTS allows (docs/architecture.md's table, which
//     import-table-doc.test.ts compares with it); a folder missing from the table is a violation too;
//  7. nothing outside src/native/testing imports it: the fakes are for tests, and the production build
//     (tsconfig.build.json) leaves that folder out, so an import of it from shipped code would ship it.
//  8. src/app never imports src/commands: the commands (`--dry-run`, `explain`, `--init-only`) are built
//     on the wiring's pieces (node name, families, mode options), so the wiring importing one would
//     close a cycle; src/main.ts picks the command. The table keeps every other folder out of it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

export interface Violation { file: string; imports: string; rule: string }

/**
 * What each top folder of src/ may import ('all' for the wiring), besides itself. `proxier` stands for
 * each mode's folder (a mode never imports another, rule 1); `main` is src/main.ts. src/config's
 * imports are rules 3 and 5.
 */
export const FOLDER_IMPORTS: Readonly<Record<string, readonly string[] | 'all'>> = {
  base: [],
  native: [],
  policy: ['native'],
  log: ['base'],
  k8s: ['base'],
  core: ['base'],
  runner: ['base'],
  http: ['base'],
  health: ['base', 'http'],
  metrics: ['base', 'http'],
  cleanup: ['base', 'native', 'policy'],
  conntrack: ['base', 'config', 'core', 'native'],
  proxier: ['base', 'config', 'core', 'native', 'policy'],
  config: [],
  app: 'all',
  commands: ['app', 'base', 'config', 'conntrack', 'core', 'health', 'http', 'k8s', 'native', 'proxier'],
  main: 'all',
};

/** The fakes' folder (rule 7), as a path under src/. */
export const TESTING = 'native/testing';

export const CONFIG_CONTRACTS = ['config/mode-section', 'config/net', 'config/schema', 'config/duration'];

export function listTsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTsFiles(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Module specifiers a file imports: import/export ... from, require(), import(). */
export function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** "src/x/y.ts" style path relative to src, without extension ("proxier/ipvs/config"). */
function underSrc(srcDir: string, absolute: string): string | null {
  const rel = path.relative(srcDir, absolute);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/').replace(/\.(ts|js)$/, '').replace(/\/index$/, '');
}

const modeOf = (p: string) => /^proxier\/([^/]+)(\/|$)/.exec(p)?.[1];
const topOf = (p: string) => p.split('/')[0];

function checkTable(from: string, to: string): string | null {
  const top = topOf(from);
  const target = topOf(to);
  if (top === 'config' || top === target) return null;
  const allowed = FOLDER_IMPORTS[top];
  if (allowed === undefined) return `src/${top} is not in the import table (FOLDER_IMPORTS)`;
  if (allowed === 'all' || allowed.includes(target)) return null;
  return `src/${top} may import ${allowed.length ? `only ${allowed.join(', ')}` : 'no other folder'}, not src/${target}`;
}

const isTesting = (p: string) => p === TESTING || p.startsWith(`${TESTING}/`);

function check(from: string, to: string): string | null {
  if (isTesting(to) && !isTesting(from)) return `production code imports the fakes (src/${TESTING})`;
  const fromMode = modeOf(from);
  const toMode = modeOf(to);
  if (fromMode && toMode && fromMode !== toMode) return `mode ${fromMode} imports mode ${toMode}`;
  if (/^proxier\/[^/]+\/config$/.test(from) && !CONFIG_CONTRACTS.includes(to)) {
    return `a mode's config.ts may import only ${CONFIG_CONTRACTS.join(', ')}`;
  }
  const top = topOf(from);
  if ((top === 'core' || top === 'runner') && toMode) return `src/${top} imports a proxier`;
  if (top === 'app' && topOf(to) === 'commands') return 'src/app imports a command (src/commands builds on src/app)';
  if (top === 'config') {
    if (toMode) {
      if (from !== 'config/modes' || !/^proxier\/[^/]+\/config$/.test(to)) {
        return 'src/config may import a mode only from config/modes.ts, and only its config.ts';
      }
    } else if (topOf(to) !== 'config') {
      return `src/config imports src/${topOf(to)}`;
    }
  }
  return checkTable(from, to);
}

/** Checks every .ts under srcDir; returns the violations and how many files were scanned. */
export function checkTree(srcDir: string): { violations: Violation[]; scanned: string[] } {
  const violations: Violation[] = [];
  const scanned = listTsFiles(srcDir);
  for (const file of scanned) {
    const from = underSrc(srcDir, file);
    if (from === null) continue;
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const to = underSrc(srcDir, path.resolve(path.dirname(file), spec));
      if (to === null) continue;
      const rule = check(from, to);
      if (rule) violations.push({ file: path.relative(path.dirname(srcDir), file), imports: spec, rule });
    }
  }
  return { violations, scanned };
}
