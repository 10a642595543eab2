// The dependencies as npm installs them: `npm ci` checks every tarball against the sha512 the lockfile
// records (our machines reach no advisory database, so that check is what we have), so every entry
// must carry one, and nothing that installs may turn the lockfile off. docs/deploy.md#auditing-the-dependencies.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/topology';

interface LockEntry { version?: string; integrity?: string; link?: boolean; dev?: boolean; engines?: Record<string, string> }
const lock = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
  lockfileVersion: number; packages: Record<string, LockEntry>;
};
const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>; devDependencies: Record<string, string>; engines: Record<string, string>;
};
const read = (f: string): string => fs.readFileSync(path.join(REPO_ROOT, f), 'utf8');
/** Every place that installs the dependencies. */
const INSTALLERS = ['.ci/run', 'scripts/setup.sh', 'Dockerfile'];

describe('package-lock.json', () => {
  it('gives every installed package a sha512 integrity', () => {
    assert.equal(lock.lockfileVersion, 3);
    const entries = Object.entries(lock.packages).filter(([key]) => key !== '');
    assert.ok(entries.length > 50, `${entries.length} entries`);
    const without = entries.filter(([, e]) => !e.link && !/^sha512-[A-Za-z0-9+/]{86}==$/.test(e.integrity ?? ''))
      .map(([key, e]) => `${key}: ${e.integrity ?? 'no integrity'}`);
    assert.deepEqual(without, [], 'entries npm ci could not verify');
    assert.deepEqual(entries.filter(([, e]) => e.link).map(([key]) => key), [], 'no linked (unverified) packages');
  });

  it('matches package.json: every direct dependency is locked; the runtime ones are not marked dev', () => {
    for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]) {
      assert.ok(lock.packages[`node_modules/${name}`], `${name} is not in the lockfile`);
    }
    assert.deepEqual(lock.packages[''].engines, pkg.engines, 'the lockfile\'s root has package.json\'s engines');
    // (A dev dependency may lose its dev flag: @types/node is also what client-node's @types need.)
    for (const name of Object.keys(pkg.dependencies)) assert.ok(!lock.packages[`node_modules/${name}`].dev, `${name} is marked dev`);
  });

  it('is what every installer uses: npm ci, with no flag that skips the lockfile or its checks', () => {
    for (const f of INSTALLERS) {
      const text = read(f);
      assert.match(text, /\bnpm ci\b/, `${f} installs with npm ci`);
      assert.doesNotMatch(text, /\bnpm (?:install|i|add|update)\b/, `${f}: npm install would rewrite the lockfile`);
      assert.doesNotMatch(text, /--no-package-lock|--package-lock=false|--force\b|--legacy-peer-deps/, `${f}: a flag that weakens npm ci`);
    }
    assert.ok(!fs.existsSync(path.join(REPO_ROOT, '.npmrc')) || !/package-lock\s*=\s*false/.test(read('.npmrc')));
  });
});
