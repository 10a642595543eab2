// Builds and runs connect-loop.c: per round, a batch of connections in each namespace in turn, all
// from one process. Returns every round's µs per connection, per target, for the paired statistics.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestNetns } from '../lib/netns';

const SOURCE = path.resolve(__dirname, '..', '..', '..', 'bench', 'datapath', 'connect-loop.c');

let built: string | undefined;

/** Compiles the client once per process (cc is on every machine that builds the addon). */
export function connectLoopBinary(): string {
  if (built) return built;
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kpn-connect-loop-')), 'connect-loop');
  execFileSync('cc', ['-O2', '-Wall', '-Werror', '-o', out, SOURCE], { stdio: ['ignore', 'ignore', 'pipe'] });
  built = out;
  return out;
}

/**
 * The client's scheduling: `normal`, or `realtime` (SCHED_FIFO 10 through chrt, for it and the
 * loopback softirq work done in its context): on the shared 2-CPU machine at load 8, batches of the
 * same bare connection (node client) read 136-424 µs normal and 80-90 µs realtime. Short batches and
 * the kernel's RT throttling (95% of each second) keep it from starving anyone.
 */
export type Scheduling = 'normal' | 'realtime';

/** A namespace and where to connect in it; the server listens on 0.0.0.0:listenPort there. */
export interface LoopTarget { ns: TestNetns; host: string; port: number; listenPort: number }

export interface LoopTiming { rounds: number; perRound: number; scheduling: Scheduling }

/** rounds x targets: µs per connection of each target in each round. */
export function connectRounds(targets: LoopTarget[], t: LoopTiming): number[][] {
  const specs = targets.map((x) => `${x.ns.path}:${x.host}:${x.port}:${x.listenPort}`);
  const args = [String(t.rounds), String(t.perRound), ...specs];
  const bin = connectLoopBinary();
  const [cmd, argv] = t.scheduling === 'realtime' ? ['chrt', ['-f', '10', bin, ...args]] : [bin, args];
  let out: string;
  try {
    out = execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  } catch (e) {
    throw new Error(`connect-loop failed: ${(e as { stderr?: string }).stderr || (e as Error).message}`);
  }
  const rows = out.trim().split('\n').map((l) => l.split(' ').map(Number));
  if (rows.length !== t.rounds || rows.some((r) => r.length !== targets.length || r.some((v) => !Number.isFinite(v)))) {
    throw new Error(`connect-loop printed ${rows.length} rounds of ${rows[0]?.length ?? 0}, expected ${t.rounds} of ${targets.length}`);
  }
  return rows;
}
