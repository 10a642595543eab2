// A bench step in a child process of its own (a heap of its own, or inside a network namespace): the
// child prints one `RESULT <json>` line on stdout, the parent resolves with that JSON. Everything
// else the child prints to stdout is ignored; its stderr goes to ours.
import { spawn } from 'node:child_process';

const PREFIX = 'RESULT ';

/** Runs `command args`; resolves with the JSON of its RESULT line. `what` names it in the error. */
export function runResultChild<T>(command: string, args: string[], what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(PREFIX));
      if (code !== 0 || !line) reject(new Error(`${what} exited ${code}${line ? '' : ' without a result'}`));
      else resolve(JSON.parse(line.slice(PREFIX.length)) as T);
    });
  });
}

/** The child side: prints `result` as the RESULT line; resolves once it is written. */
export function printResult(result: unknown): Promise<void> {
  return new Promise((resolve) => process.stdout.write(`${PREFIX}${JSON.stringify(result)}\n`, () => resolve()));
}
