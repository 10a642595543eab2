// Loads the built addon for the raw tests (build/Release from the repo root).
import * as path from 'node:path';

export interface CommitStats { messages: number; sends: number; bytes: number }
export interface NativeAddon {
  NftSocket: new (netnsPath?: string | null) => {
    commit(buf: Buffer): Promise<CommitStats>;
    listTables(): Promise<Array<{ family: number; name: string }>>;
    dumpTable(family: number, name: string): Promise<any>;
    close(): void;
  };
  validateTransaction(buf: Buffer): number;
}

// dist/test/native-raw -> repo root is three levels up.
export const addon: NativeAddon = require(path.resolve(__dirname, '../../../build/Release/kube_proxy_native.node'));
