// Helpers for nftables proxier tests on FakeKernel: no root and no namespace, the kernel's rules
// as test/native/fake-vs-kernel.test.ts checks them. Tests observe through the fake: what was
// committed (FakeNft.commits), what was dumped, and the ruleset as sorted nft text.
import assert from 'node:assert/strict';
import { FakeKernel, type FakeCommit, type FakeNft } from '../../../src/native/testing';
import { NftablesProxier, type NftablesProxierOptions } from '../../../src/proxier/nftables';
import { TABLE } from '../../../src/proxier/nftables/names';
import type { Endpoint, ServicePort } from '../../../src/core/types';
import { changed, proxierOptions, snapshot } from './fixtures';

type Family = 'ip' | 'ip6';

export interface OnFake { proxier: NftablesProxier; nft: FakeNft; kernel: FakeKernel }

/** A proxier on a fake kernel of its own (or on `kernel`, to share one with another handle). */
export function proxierOnFake(over: Partial<NftablesProxierOptions> = {}, kernel = new FakeKernel()): OnFake {
  const nft = kernel.open();
  return { proxier: new NftablesProxier(proxierOptions(nft, over)), nft, kernel };
}

/**
 * Our tables as sorted nft text: equal whenever their contents are, whatever the order of creation.
 * Set comments are left out: a set adopted from an earlier run keeps the comment it was made with
 * (the kernel ignores the userdata of a set added again), as the kernel tests' normalizedRuleset does.
 */
export function ruleset(kernel: FakeKernel): string {
  return kernel.listRuleset({ table: TABLE }).replace(/^(add (?:set|map) .*) comment "[^"]*";/gm, '$1');
}

function lines(kernel: FakeKernel, family: Family, prefix: string): string[] {
  const head = `${prefix} ${family} ${TABLE} `;
  return kernel.listRuleset({ family, table: TABLE }).split('\n').filter((l) => l.startsWith(head)).map((l) => l.slice(head.length));
}

/** The elements of a set or map of ours, as nft writes them ('172.30.0.41 . tcp . 80'). */
export function elementsOf(kernel: FakeKernel, set: string, family: Family = 'ip'): string[] {
  return lines(kernel, family, 'add element').filter((l) => l.startsWith(`${set} { `)).map((l) => l.slice(set.length + 3, -2));
}

export function chainNames(kernel: FakeKernel, family: Family = 'ip'): string[] {
  return lines(kernel, family, 'add chain').map((l) => l.split(' ')[0]);
}

/** The rules of one chain of ours, as nft text. */
export function rulesOf(kernel: FakeKernel, chain: string, family: Family = 'ip'): string[] {
  return lines(kernel, family, 'add rule').filter((l) => l.startsWith(`${chain} `)).map((l) => l.slice(chain.length + 1));
}

export function setNames(kernel: FakeKernel, family: Family = 'ip'): string[] {
  return [...lines(kernel, family, 'add set'), ...lines(kernel, family, 'add map')].map((l) => l.split(' ')[0]).sort();
}

/** The ops of a commit, as nft text. */
export function opsOf(c: FakeCommit): string[] {
  return Array.from({ length: c.tx.opCount }, (_, i) => c.tx.describe(i));
}

export function lastCommit(nft: FakeNft): FakeCommit {
  const c = nft.commits.at(-1);
  assert.ok(c, 'nothing was committed');
  return c;
}

/** What a fresh process's first full sync of `entries` programs, on a fake kernel of its own. */
export async function freshFullSync(entries: [ServicePort, Endpoint[]][], over: Partial<NftablesProxierOptions> = {}): Promise<string> {
  const { proxier, kernel } = proxierOnFake(over);
  assert.deepEqual(await proxier.sync(snapshot(entries), changed(), true), { full: true, ok: true });
  return ruleset(kernel);
}

/** A counter for NftablesMetrics that remembers how often it was increased. */
export function countingMetric(): { inc(): void; readonly count: number } {
  let count = 0;
  return { inc: () => { count++; }, get count() { return count; } };
}
