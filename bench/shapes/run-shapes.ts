// Part A of the bench (`npm run bench -- shapes`): the kube-proxy-shaped ruleset in the linear shape
// applied through the addon and through `nft -f`, each into a fresh namespace, and upstream's shape
// (an anonymous verdict map per Service) through `nft -f`, to show why the shape matters.
import { writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticCluster, SynthService } from '../lib/cluster';
import { rulesetText, Shape } from './nft-text';
import { linearTransaction, objectCounts } from './linear-tx';
import { Cost, cpuS, measureInProcess, measureNftFile } from '../lib/measure';
import { loadNative, nativeMissing, CommitStats } from '../lib/native';
import { benchNetns, teardown, TestNetns } from '../lib/netns';
import { benchEnv, envLine } from '../lib/env';
import { markdownTable, progress, ratio, Cell } from '../report/table';
import { timestamp, writeResult } from '../lib/results';

const E = 4;
const NODEPORT_SHARE = 0.1;

export interface ShapeRow {
  shape: Shape;
  n: number;
  objects: ReturnType<typeof objectCounts>;
  addonBuild?: Cost;
  addonCommit?: Cost;
  commitStats?: CommitStats;
  nftText: 'tx.toNftScript()' | 'bench text generator';
  nft: Cost;
  /** Both paths produced the same `nft list table` output (checked at small N only). */
  identical?: boolean;
}

function listTable(ns: TestNetns): string {
  return ns.nft('list', 'table', 'ip', 'kube-proxy');
}

async function viaAddon(services: SynthService[], row: Partial<ShapeRow>, compare: boolean): Promise<{ script: string; listing?: string }> {
  const api = loadNative();
  const ns = benchNetns();
  try {
    progress(`linear N=${services.length}: building transaction`);
    const build = await measureInProcess(() => linearTransaction(api, services));
    const nft = api.Nft.open({ netns: ns.path });
    progress(`linear N=${services.length}: committing ${build.value.opCount} ops through the addon`);
    const commit = await measureInProcess(() => nft.commit(build.value));
    nft.close();
    Object.assign(row, { addonBuild: build.cost, addonCommit: commit.cost, commitStats: commit.value });
    return { script: build.value.toNftScript(), listing: compare ? listTable(ns) : undefined };
  } finally {
    teardown(ns);
  }
}

function viaNftFile(n: number, shape: Shape, script: string): { cost: Cost; listing: (() => string) | undefined; ns: TestNetns } {
  const dir = mkdtempSync(join(tmpdir(), 'kpn-bench-'));
  const file = join(dir, `${shape}-${n}.nft`);
  writeFileSync(file, script);
  const ns = benchNetns();
  try {
    progress(`${shape} N=${n}: nft -f (${(script.length / 1e6).toFixed(1)} MB of nft text)`);
    return { cost: measureNftFile(ns.name, file), listing: () => listTable(ns), ns };
  } catch (e) {
    teardown(ns);
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runShape(shape: Shape, n: number, useAddon: boolean): Promise<ShapeRow> {
  const services = syntheticCluster({ services: n, endpointsPerService: E, nodePortShare: NODEPORT_SHARE });
  const row: Partial<ShapeRow> = { shape, n, objects: objectCounts(services, shape) };
  const compare = n <= 1000;
  let script: string;
  let addonListing: string | undefined;
  if (useAddon) {
    const r = await viaAddon(services, row, compare);
    script = r.script;
    addonListing = r.listing;
    row.nftText = 'tx.toNftScript()';
  } else {
    script = rulesetText(services, shape);
    row.nftText = 'bench text generator';
  }
  const viaNft = viaNftFile(n, shape, script);
  try {
    row.nft = viaNft.cost;
    if (addonListing !== undefined) row.identical = addonListing === viaNft.listing!();
  } finally {
    teardown(viaNft.ns);
  }
  progress(`${shape} N=${n}: done`);
  return row as ShapeRow;
}

export function shapesTable(rows: ShapeRow[]): string {
  const out: Cell[][] = [];
  for (const r of rows) {
    const o = r.objects;
    const objs = `${o.chains.toLocaleString('en-US')} / ${o.rules.toLocaleString('en-US')} / ${o.elements.toLocaleString('en-US')}${o.anonSets ? ` / ${o.anonSets.toLocaleString('en-US')} anon maps` : ''}`;
    const line = (path: string, c: Cost | undefined, note?: string): Cell[] =>
      [r.shape, r.n, objs, path, c?.wallS, c?.userS, c?.sysS, c ? cpuS(c) : undefined, c?.maxRssMiB, note];
    if (r.addonCommit && r.addonBuild) {
      const total: Cost = {
        wallS: r.addonBuild.wallS + r.addonCommit.wallS,
        userS: r.addonBuild.userS + r.addonCommit.userS,
        sysS: r.addonBuild.sysS + r.addonCommit.sysS,
        maxRssMiB: r.addonCommit.maxRssMiB,
      };
      out.push(line('addon: build tx (TS)', r.addonBuild));
      out.push(line('addon: commit', r.addonCommit, r.commitStats ? `${r.commitStats.messages.toLocaleString('en-US')} msgs, ${(r.commitStats.bytes / 1e6).toFixed(1)} MB, ${r.commitStats.sends} sends` : undefined));
      out.push(line('addon: total', total));
      out.push(line('nft -f', r.nft, `${r.nftText}${r.identical === undefined ? '' : r.identical ? '; same ruleset as addon' : '; RULESET DIFFERS from addon'}`));
      const w = ratio(r.nft.wallS, total.wallS);
      const c = ratio(cpuS(r.nft), cpuS(total));
      const k = ratio(r.nft.sysS, r.addonCommit.sysS);
      out.push([r.shape, r.n, objs, 'ratio nft -f / addon', w, undefined, k, c, undefined, 'wall, sys, cpu ratios (x)']);
    } else {
      out.push(line('nft -f', r.nft, r.nftText));
    }
  }
  return markdownTable(['shape', 'N', 'chains / rules / elements', 'path', 'wall s', 'user s', 'sys s', 'cpu s', 'peak RSS MiB', 'note'], out);
}

export async function runShapes(opts: { quick: boolean }): Promise<void> {
  const env = benchEnv();
  const linearNs = opts.quick ? [100, 1000] : [1000, 10000, 30000];
  const upstreamNs = opts.quick ? [1000] : [1000, 5000, 10000];
  const missing = nativeMissing();
  if (missing) progress(`${missing}; measuring the nft -f path only`);
  const rows: ShapeRow[] = [];
  for (const n of linearNs) rows.push(await runShape('linear', n, !missing));
  for (const n of upstreamNs) rows.push(await runShape('upstream', n, false));
  const table = shapesTable(rows);
  const stamp = timestamp();
  const file = writeResult('shapes-', stamp, 'json', JSON.stringify({ env, quick: opts.quick, endpointsPerService: E, nodePortShare: NODEPORT_SHARE, rows }, null, 2) + '\n');
  process.stdout.write(`\nRuleset shapes: N Services x ${E} endpoints, NodePorts on ${NODEPORT_SHARE * 100}%, each path into a fresh network namespace\n`);
  process.stdout.write(`${envLine(env)}\n\n${table}\n\nresults: ${file}\n`);
  if (missing) process.stdout.write(`\nThe addon rows are missing: ${missing}\n`);
}
