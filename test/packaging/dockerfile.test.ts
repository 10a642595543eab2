// No Docker engine runs here, so the Dockerfile is checked by reading: every path it copies must exist
// (in the build context, or in what the build stage produces), .dockerignore must not hide them, and
// the runtime stage must carry exactly the production pieces.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { REPO_ROOT } from '../helpers/topology';

interface Copy { from?: string; sources: string[]; dest: string; stage: string }

function parseCopies(text: string): Copy[] {
  const copies: Copy[] = [];
  let stage = '';
  for (const raw of text.replace(/\\\n/g, ' ').split('\n')) {
    const line = raw.trim();
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) { stage = from[1] ?? 'final'; continue; }
    const m = /^COPY\s+(?:--from=(\S+)\s+)?(.+)$/i.exec(line);
    if (!m) continue;
    const parts = m[2].split(/\s+/);
    copies.push({ from: m[1], sources: parts.slice(0, -1), dest: parts[parts.length - 1], stage });
  }
  return copies;
}

const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
const copies = parseCopies(dockerfile);
const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n'));
const ignored = fs.readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);

describe('Dockerfile', () => {
  it('is multi-stage: a build stage and a slim runtime, both on the LTS line the tests run (scripts/node-lts.sh)', () => {
    const pinned = execFileSync('bash', [path.join(REPO_ROOT, 'scripts', 'node-lts.sh'), '--version'], { encoding: 'utf8' }).trim();
    const line = pinned.split('.')[0];
    assert.match(dockerfile, new RegExp(`^FROM node:${line}-bookworm AS build$`, 'm'));
    assert.match(dockerfile, new RegExp(`^FROM node:${line}-bookworm-slim$`, 'm'));
    assert.equal(dockerfile.match(/^FROM /gm)?.length, 2);
    // The addon is compiled against the headers of the Node that runs it.
    assert.match(dockerfile, /node-gyp rebuild --nodedir=\/usr\/local\b/);
    const engines = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).engines.node as string;
    assert.match(engines, new RegExp(`\\^${line}\\.`), `engines.node (${engines}) names the image's line`);
  });

  it('copies from the context only files git tracks and .dockerignore keeps', () => {
    const fromContext = copies.filter((c) => !c.from);
    assert.ok(fromContext.length > 0);
    for (const c of fromContext) {
      for (const src of c.sources) {
        const isTracked = tracked.has(src) || [...tracked].some((f) => f.startsWith(`${src.replace(/\/$/, '')}/`));
        assert.ok(isTracked, `COPY ${src}: not tracked by git`);
        assert.ok(!ignored.some((i) => src === i || src.startsWith(`${i}/`)), `COPY ${src}: hidden by .dockerignore`);
      }
    }
  });

  it('copies from the build stage only what the build produces', () => {
    const fromBuild = copies.filter((c) => c.from === 'build');
    const produced: Record<string, string> = {
      '/src/package.json': 'package.json',
      '/src/node_modules': 'node_modules',
      '/src/dist/src': 'dist/src',
      '/src/build/Release/kube_proxy_native.node': 'build/Release/kube_proxy_native.node',
    };
    assert.deepEqual(fromBuild.map((c) => c.sources[0]).sort(), Object.keys(produced).sort());
    for (const local of Object.values(produced)) assert.ok(fs.existsSync(path.join(REPO_ROOT, local)), `${local} is not produced by npm run build`);
    assert.ok(fs.existsSync(path.join(REPO_ROOT, 'dist/src/main.js')), 'the entry bin/kube-proxy-native.js requires');
  });

  it('builds the shipped JavaScript from src/ alone (the test API server is never in the image)', () => {
    const cfg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'tsconfig.build.json'), 'utf8'));
    assert.deepEqual(cfg.include, ['src/**/*.ts']);
    assert.match(dockerfile, /tsc -p tsconfig\.build\.json/);
    assert.match(dockerfile, /npm prune --omit=dev/);
    const srcFiles = execFileSync('git', ['ls-files', 'src'], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.doesNotMatch(srcFiles, /apiserver/);
  });

  it('leaves the fakes (src/native/testing) out of the shipped JavaScript, and builds them for the tests', () => {
    // Every file the build compiles, imported ones included: an exclude alone would not keep out a
    // fake that shipped code imports (test/architecture/import-rules.ts forbids that too).
    const compiled = (config: string): string[] => {
      const file = ts.readConfigFile(path.join(REPO_ROOT, config), (p) => ts.sys.readFile(p));
      const parsed = ts.parseJsonConfigFileContent(file.config, ts.sys, REPO_ROOT);
      const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, types: [] } });
      return program.getSourceFiles().map((f) => path.relative(REPO_ROOT, f.fileName).split(path.sep).join('/'));
    };
    const shipped = compiled('tsconfig.build.json');
    assert.ok(shipped.includes('src/main.ts') && shipped.includes('src/native/nft/nft.ts'), 'the build compiles src/');
    assert.deepEqual(shipped.filter((f) => f.startsWith('src/native/testing/')), []);
    const all = compiled('tsconfig.json');
    assert.ok(all.includes('src/native/testing/fake-kernel.ts') && all.includes('src/native/testing/fake-ipvs.ts'));
  });

  it('installs the program where upstream DaemonSets run it', () => {
    assert.match(dockerfile, /ln -s \/opt\/kube-proxy-native\/bin\/kube-proxy-native\.js \/usr\/local\/bin\/kube-proxy\b/);
    assert.match(dockerfile, /^ENTRYPOINT \["\/usr\/local\/bin\/kube-proxy"\]$/m);
  });
});
