// The proxy as a process of its own, programming a test network namespace: what `kube-proxy-native`
// runs (the same command-line parsing and startProxy), plus the namespace, which the real command
// takes from the process it runs in. Fault tests kill it (SIGKILL) where a test-process proxy
// could not be killed. Run: node proxy-process.js NETNS_PATH [kube-proxy-native flags...]
import { parseCommandLine } from '../../src/config';
import { startProxy } from '../../src/app/proxy-app';
import { createLogger } from '../../src/log';

async function main(): Promise<void> {
  const [netns, ...args] = process.argv.slice(2);
  const cl = parseCommandLine(args);
  if (cl.errors.length > 0) throw new Error(cl.errors.join('; '));
  const log = createLogger({ format: 'json', verbosity: 4, destination: process.stdout });
  const proxy = await startProxy({ config: cl.config, log, netns, healthCheckAddresses: ['127.0.0.1'] });
  process.once('SIGTERM', () => {
    void proxy.stop().then(() => process.exit(0));
  });
}

main().catch((e) => {
  process.stderr.write(`proxy-process: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
