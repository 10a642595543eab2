// Loads upstream's table (test/traffic/upstream-nftables.ts) into a namespace with `nft -f`, as
// upstream's knftables does, printing progress while it runs: at 10k Services it takes minutes.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { upstreamSyncScript, type UpstreamOptions } from '../../test/traffic/upstream-nftables';
import type { TestNetns } from '../lib/netns';
import { progress } from '../report/table';

const HEARTBEAT_MS = 15_000;

/** Seconds `nft -f` took to load the script of `o` into `ns`; throws with nft's stderr when it fails. */
export async function loadUpstream(ns: TestNetns, o: UpstreamOptions): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'kpn-datapath-'));
  const file = join(dir, 'upstream.nft');
  try {
    const script = upstreamSyncScript(o);
    writeFileSync(file, script);
    progress(`  upstream: nft -f of ${(script.length / 1e6).toFixed(1)} MB (${o.services.length} Services)`);
    const t0 = performance.now();
    const beat = setInterval(() => progress(`  upstream: nft -f still running, ${((performance.now() - t0) / 1000).toFixed(0)} s`), HEARTBEAT_MS);
    try {
      await run('ip', ['netns', 'exec', ns.name, 'nft', '-f', file]);
    } finally {
      clearInterval(beat);
    }
    return (performance.now() - t0) / 1000;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => { if (stderr.length < 4000) stderr += b.toString(); });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr.trim()}`))));
  });
}
