// Result files: bench/results/<prefix><timestamp>.json plus <prefix>latest.json, in the source tree
// (not dist/) so a person finds them next to the bench.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const RESULTS_DIR = join(__dirname, '..', '..', '..', 'bench', 'results');

export function timestamp(): string {
  return new Date().toISOString().replace(/[:]/g, '-').replace(/\.\d+Z$/, 'Z');
}

export function writeResult(prefix: string, stamp: string, ext: string, body: string): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${prefix}${stamp}.${ext}`);
  writeFileSync(file, body);
  writeFileSync(join(RESULTS_DIR, `${prefix}latest.${ext}`), body);
  return file;
}
