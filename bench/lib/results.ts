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

/**
 * JSON with two-space indentation, except that the items of every array under one of `keys` (e.g.
 * 'samples') take one line each: a result with thousands of samples stays readable and a third of the size.
 */
export function jsonCompacting(value: unknown, keys: readonly string[]): string {
  const compact: string[] = [];
  const text = JSON.stringify(value, (key, v) => {
    if (!keys.includes(key) || !Array.isArray(v)) return v;
    return v.map((item) => {
      compact.push(JSON.stringify(item));
      return `\u0000${compact.length - 1}\u0000`;
    });
  }, 2);
  return text.replace(/"\\u0000(\d+)\\u0000"/g, (_m, i: string) => compact[Number(i)]) + '\n';
}
