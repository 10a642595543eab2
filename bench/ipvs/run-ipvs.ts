// `npm run bench -- ipvs`: the host has no IPVS, so this boots the IPVS guest once
// (scripts/ipvs-guest, docs/testing-ipvs.md) and runs the measurement inside it (in-guest.ts),
// which writes its results into bench/results (shared read-write with the guest).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { nativeMissing } from '../lib/native';
import { ensureGnuTime } from '../lib/measure';
import { RESULTS_DIR, timestamp } from '../lib/results';
import { progress } from '../report/table';
import { calibrationMs } from './calibrate';
import { GUEST_CHILD, type GuestOptions } from './in-guest';

const ROOT = join(__dirname, '..', '..', '..');
const GUEST = join(ROOT, 'scripts', 'ipvs-guest');
export const DEFAULT_SIZES = [1000, 5000, 10000];
export const DEFAULT_REPEATS = 20;

export async function runIpvs(o: { sizes?: number[]; repeats?: number; quick: boolean }): Promise<void> {
  const missing = nativeMissing();
  if (missing) throw new Error(missing);
  ensureGnuTime(); // the guest sees the host's files: /usr/bin/time must be there
  progress('building the guest assets if missing (scripts/ipvs-guest/build-guest.sh)');
  run('bash', [join(GUEST, 'build-guest.sh')]);
  progress('calibrating on the host');
  const opts: GuestOptions = {
    sizes: o.sizes ?? (o.quick ? [300, 1000] : DEFAULT_SIZES), repeats: o.repeats ?? (o.quick ? 5 : DEFAULT_REPEATS),
    hostCalibrationMs: calibrationMs(), stamp: timestamp(),
  };
  progress(`booting the IPVS guest (2 vCPUs, 2 GiB) for N = ${opts.sizes.join(', ')}`);
  const cmd = `node --expose-gc dist/bench/run.js ${GUEST_CHILD} '${JSON.stringify(opts)}'`;
  run('bash', [join(GUEST, 'run-ipvs-guest.sh'), '-c', '2', '-m', '2048', '-t', '1200', '-w', RESULTS_DIR, cmd]);
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error) throw new Error(`${cmd} ${args[0]}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${args[0]} exited ${r.status}`);
}
