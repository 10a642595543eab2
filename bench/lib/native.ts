// Loads src/native lazily so the bench still runs (the nft -f paths) while the addon is not built,
// and says precisely what is missing when it is needed. The interface below is the subset of
// docs/native-api.md the bench uses.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type Family = 'ip' | 'ip6' | 'inet';
export type Verdict = { kind: 'accept' | 'drop' | 'return' | 'continue' } | { kind: 'jump' | 'goto'; chain: string };
export type KeyExpr = 'saddr' | 'daddr' | 'l4proto' | 'dport' | 'sport' | { ip: string } | { proto: 'tcp' | 'udp' | 'sctp' } | { port: number };

export interface Rule { readonly text: string }
export interface RuleBuilder {
  daddr(addr: string, negate?: boolean): this;
  saddr(addr: string, negate?: boolean): this;
  l4proto(p: 'tcp' | 'udp' | 'sctp'): this;
  dport(port: number): this;
  fibDaddrLocal(negate?: boolean): this;
  markAnd(mask: number, value: number, negate?: boolean): this;
  vmap(parts: KeyExpr[], map: string): this;
  numgenMod(mod: number, equals: number): this;
  counter(): this;
  markOr(bits: number): this;
  markXor(bits: number): this;
  dnat(addr: string, port?: number): this;
  masquerade(fullyRandom?: boolean): this;
  verdict(v: Verdict): this;
  build(): Rule;
}
export interface Transaction {
  addTable(family: Family, name: string): this;
  addChain(family: Family, table: string, chain: { name: string; base?: { type: 'filter' | 'nat' | 'route'; hook: string; priority: number; policy?: 'accept' | 'drop' } }): this;
  addRule(family: Family, table: string, chain: string, rule: Rule): this;
  addSet(family: Family, table: string, set: { name: string; key: string[]; map?: string }): this;
  /** A set that exists in the kernel already: the builder learns its types to encode elements. */
  declareSet(family: Family, table: string, set: { name: string; key: string[]; map?: string }): this;
  addElements(family: Family, table: string, set: string, elements: { key: (string | number)[]; verdict?: Verdict }[]): this;
  readonly opCount: number;
  toNftScript(): string;
}
export interface CommitStats { messages: number; sends: number; bytes: number }
export interface Nft {
  commit(tx: Transaction): Promise<CommitStats>;
  close(): void;
}
export interface NativeApi {
  Transaction: new () => Transaction;
  rule(family: 'ip' | 'ip6' | 'inet'): RuleBuilder;
  Nft: { open(opts?: { netns?: string }): Nft };
}

const ROOT = join(__dirname, '..', '..', '..');
const SRC_INDEX = join(ROOT, 'dist', 'src', 'native', 'index.js');
const ADDON = join(ROOT, 'build', 'Release', 'kube_proxy_native.node');

/** Why the addon path cannot run, or undefined when it can. */
export function nativeMissing(): string | undefined {
  const missing: string[] = [];
  if (!existsSync(SRC_INDEX)) missing.push(`${SRC_INDEX} (src/native/index.ts, compiled by npx tsc -p .)`);
  if (!existsSync(ADDON)) missing.push(`${ADDON} (build it with npx node-gyp rebuild)`);
  return missing.length ? `native addon not available: missing ${missing.join(' and ')}` : undefined;
}

export function loadNative(): NativeApi {
  const why = nativeMissing();
  if (why) throw new Error(why);
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  return require(SRC_INDEX) as NativeApi;
}
