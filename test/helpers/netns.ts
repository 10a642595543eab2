// Fresh network namespaces for kernel tests. Every namespace made here is removed when the test's
// callback ends (passed or failed) and, as a last resort, when the process exits.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const live = new Set<string>();
/** Every namespace this process made, in order (removed or not): to check its own leftovers, not others'. */
const created: string[] = [];

export function netnsCreatedHere(): readonly string[] {
  return created;
}
process.on('exit', () => {
  for (const name of live) {
    try { execFileSync('ip', ['netns', 'del', name], { stdio: 'ignore' }); } catch { /* already gone */ }
  }
});

export class TestNetns {
  readonly path: string;
  constructor(readonly name: string) {
    this.path = `/run/netns/${name}`;
  }

  /** Runs a command inside the namespace and returns its stdout. Throws with stderr on failure. */
  exec(cmd: string, args: string[], input?: string): string {
    try {
      return execFileSync('ip', ['netns', 'exec', this.name, cmd, ...args], {
        encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 1 << 30,
      });
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      throw new Error(`${cmd} ${args.join(' ')} in netns ${this.name}: ${err.stderr || err.message}`);
    }
  }

  nft(...args: string[]): string {
    return this.exec('nft', args);
  }

  /** `nft -j list ruleset` parsed: the `nftables` array. */
  nftJson(): Array<Record<string, any>> {
    return JSON.parse(this.nft('-j', 'list', 'ruleset')).nftables;
  }

  destroy(): void {
    try { execFileSync('ip', ['netns', 'del', this.name], { stdio: 'ignore' }); } catch { /* gone */ }
    live.delete(this.name);
  }
}

export function createNetns(prefix = 'kpn'): TestNetns {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  execFileSync('ip', ['netns', 'add', name]);
  live.add(name);
  created.push(name);
  const ns = new TestNetns(name);
  ns.exec('ip', ['link', 'set', 'lo', 'up']);
  return ns;
}

export async function withNetns<T>(fn: (ns: TestNetns) => Promise<T> | T, prefix?: string): Promise<T> {
  const ns = createNetns(prefix);
  try {
    return await fn(ns);
  } finally {
    ns.destroy();
  }
}
