// The addon's exports as the C++ side defines them (the contract in docs/wire-format.md).

export interface RawChain { name: string; handle: number; hook?: number; priority?: number; type?: string; policy?: number }
export interface RawRule { chain: string; handle: number; exprs: string[] }
export interface RawElement {
  key: Buffer; keyEnd?: Buffer; flags: number;
  verdict?: { code: number; chain?: string }; data?: Buffer;
}
export interface RawSet {
  name: string; flags: number; keyType: number; keyLen: number; dataType: number; dataLen: number;
  elements: RawElement[];
}
export interface RawTableDump { chains: RawChain[]; rules: RawRule[]; sets: RawSet[] }

export interface NftSocketHandle {
  commit(buf: Buffer): Promise<{ messages: number; sends: number; bytes: number }>;
  listTables(): Promise<{ family: number; name: string }[]>;
  dumpTable(family: number, name: string, withElements?: boolean): Promise<RawTableDump>;
  close(): void;
}

export interface AddonModule {
  NftSocket: new (netnsPath?: string | null) => NftSocketHandle;
  validateTransaction(buf: Buffer): number;
}
