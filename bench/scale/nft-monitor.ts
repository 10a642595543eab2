// `npm run bench -- scale --nft-monitor`: an operator's `nft monitor` left running in the size's
// namespace from before the proxy starts to the end. While anyone listens on the nftables event
// group the kernel builds a notification for every object a commit changes (our quiet commits take
// only the proxy's own monitor off the group: docs/failure-modes.md), and nft prints each one. Its
// output is read and counted, as a terminal would read it, not written anywhere.
import { spawn, type ChildProcess } from 'node:child_process';
import { readProcCpuSeconds } from './proc-cpu';
import type { NftMonitorStats } from './scale-types';

/** What nft monitor prints when its socket's receive buffer overflowed (ENOBUFS): the events in between are gone. */
const LOST = '# ERROR: We lost some netlink events!';

export class NftMonitorProcess {
  private lines = 0;
  private bytes = 0;
  private lost = 0;
  /** The end of the last chunk, so a line split between two chunks is still seen whole. */
  private tail = '';
  private stderr = '';
  private cpuS = 0;
  private exitCode: number | null | undefined;
  private readonly exited: Promise<void>;

  private constructor(private readonly proc: ChildProcess) {
    const orphaned = (): void => { proc.kill('SIGKILL'); };
    process.once('exit', orphaned);
    proc.stdout!.on('data', (b: Buffer) => {
      this.bytes += b.length;
      for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) this.lines++;
      const text = this.tail + b.toString('latin1');
      this.lost += text.split(LOST).length - 1;
      this.tail = text.slice(-LOST.length + 1);
      this.cpuS = readProcCpuSeconds(proc.pid!) ?? this.cpuS;
    });
    proc.stderr!.on('data', (b: Buffer) => { if (this.stderr.length < 4096) this.stderr += b.toString(); });
    this.exited = new Promise((resolve) => proc.once('exit', (code, signal) => {
      process.off('exit', orphaned);
      this.exitCode = code ?? (signal ? null : code);
      resolve();
    }));
  }

  /** `nft monitor` in the current namespace (the size's: this process runs inside it). */
  static start(): NftMonitorProcess {
    return new NftMonitorProcess(spawn('nft', ['monitor'], { stdio: ['ignore', 'pipe', 'pipe'] }));
  }

  /** Stops it (SIGTERM to its pid) and says what it printed and used; `exitedEarly` if it had ended by itself. */
  async stop(): Promise<NftMonitorStats> {
    const exitedEarly = this.exitCode !== undefined;
    this.cpuS = readProcCpuSeconds(this.proc.pid!) ?? this.cpuS;
    if (!exitedEarly) this.proc.kill('SIGTERM');
    await this.exited;
    return { lines: this.lines, lostReports: this.lost, megabytes: this.bytes / 1e6, cpuS: this.cpuS, exitedEarly, stderr: this.stderr.trim().slice(0, 500) };
  }
}
