// The IPVS bench inside the guest (run-ipvs.ts boots it): every size in turn, then the tables on
// stdout and bench/results/ipvs-<stamp>.json|md (the results folder is shared read-write).
import { cpus, release } from 'node:os';
import { progress } from '../report/table';
import { writeResult } from '../lib/results';
import { calibrationMs } from './calibrate';
import { breakdownTable, flatnessLine, mainTable, resultPage, slowdownLine, type IpvsBenchRun } from './report';
import { measureSize } from './size';

export const GUEST_CHILD = 'ipvs-in-guest';
const WARMUP_SERVICES = 100;

export interface GuestOptions { sizes: number[]; repeats: number; hostCalibrationMs?: number; stamp: string }

export function isIpvsGuestChild(argv: string[]): boolean {
  return argv[0] === GUEST_CHILD;
}

export async function ipvsGuestChild(argv: string[]): Promise<void> {
  const opts = JSON.parse(argv[1] ?? '{}') as GuestOptions;
  if (!Array.isArray(opts.sizes) || !opts.sizes.length || !(opts.repeats > 0) || !opts.stamp) {
    throw new Error(`${GUEST_CHILD} wants {"sizes":[...],"repeats":R,"stamp":"..."}, got ${argv[1]}`);
  }
  progress('calibrating (the guest\'s slowdown)');
  const run: IpvsBenchRun = {
    date: new Date().toISOString(), guestKernel: release(), guestCpus: cpus().length, node: process.version,
    repeats: opts.repeats, calibration: { hostMs: opts.hostCalibrationMs, guestMs: calibrationMs() }, sizes: [],
  };
  // Loads ip_vs, nf_tables' modules and the dummy driver, and warms the JIT and ipvsadm's files,
  // so the first size is not charged for them (a cold 200-Service sync took 9 s, 8.9 s of it nftables').
  progress(`warm-up: N = ${WARMUP_SERVICES}, not reported`);
  await measureSize(WARMUP_SERVICES, 3, true);
  const smallest = Math.min(...opts.sizes);
  for (const n of opts.sizes) {
    progress(`N = ${n}: ours (cold full, ${opts.repeats} partial, full unchanged), then ipvsadm`);
    run.sizes.push(await measureSize(n, opts.repeats, n === smallest));
  }
  process.stdout.write(`\n${slowdownLine(run)}\n\n${mainTable(run)}\n\n${flatnessLine(run)}\n\n${breakdownTable(run)}\n\n`);
  const json = writeResult('ipvs-', opts.stamp, 'json', `${JSON.stringify(run, null, 2)}\n`);
  const md = writeResult('ipvs-', opts.stamp, 'md', resultPage(run));
  process.stdout.write(`results: ${json}, ${md} (and ipvs-latest.*)\n`);
}
