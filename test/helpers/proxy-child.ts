// Starts test/helpers/proxy-process.js and follows its JSON log lines.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

const SCRIPT = path.join(__dirname, 'proxy-process.js');

export interface ProxyChild {
  proc: ChildProcess;
  /** Every log entry so far, parsed. */
  entries: Record<string, any>[];
  /** Resolves with the first entry (from now on, or already seen when `seen` is true) matching. */
  waitFor(match: (e: Record<string, any>) => boolean, what: string, timeoutMs?: number, seen?: boolean): Promise<Record<string, any>>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export function startProxyChild(netnsPath: string, args: string[]): ProxyChild {
  const proc = spawn(process.execPath, [SCRIPT, netnsPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const entries: Record<string, any>[] = [];
  const waiters: { match: (e: Record<string, any>) => boolean; resolve: (e: Record<string, any>) => void }[] = [];
  let buf = '';
  proc.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (process.env.KPN_TEST_LOG) process.stderr.write(`[child ${proc.pid}] ${line}\n`);
      let e: Record<string, any>;
      try { e = JSON.parse(line); } catch { continue; }
      entries.push(e);
      for (const w of [...waiters]) if (w.match(e)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(e); }
    }
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    proc, entries,
    waitFor(match, what, timeoutMs = 60_000, seen = true) {
      const hit = seen ? entries.find(match) : undefined;
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for the proxy to log ${what}`)), timeoutMs);
        const w = { match, resolve: (e: Record<string, any>) => { clearTimeout(t); resolve(e); } };
        waiters.push(w);
        void exited.then((code) => { if (waiters.includes(w)) { clearTimeout(t); reject(new Error(`the proxy exited (${code}) before logging ${what}`)); } });
      });
    },
    kill(signal) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}
