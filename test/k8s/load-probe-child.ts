// Child process of no-client-node.test.ts: loads the proxy's entry module (and with it every module the
// running proxy loads), then the kubeconfig named on the command line, lists Services and Nodes (shape
// check and decoding included), and prints which requests for @kubernetes/client-node were made.
import Module = require('node:module');

const requested: string[] = [];
const mod = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
const load = mod._load;
mod._load = function (request: string, ...rest: unknown[]) {
  if (request.includes('@kubernetes/client-node')) requested.push(request);
  return load.call(this, request, ...rest);
};

async function run(): Promise<void> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  require('../../src/main');
  const { loadKubeConfig } = require('../../src/k8s/kubeconfig') as typeof import('../../src/k8s/kubeconfig');
  const { ApiConnection } = require('../../src/k8s/api-request') as typeof import('../../src/k8s/api-request');
  const { resourceClients } = require('../../src/k8s/resources') as typeof import('../../src/k8s/resources');
  const args = JSON.parse(process.argv[2]) as { flags: Parameters<typeof loadKubeConfig>[0]; options?: Parameters<typeof loadKubeConfig>[1] };
  const clients = resourceClients(new ApiConnection(loadKubeConfig(args.flags, args.options)));
  const services = await clients.services.list({});
  const nodes = await clients.nodes.list({});
  const cached = Object.keys(require.cache).filter((k) => k.includes('/node_modules/@kubernetes/client-node/'));
  process.stdout.write(JSON.stringify({ requested, cached, services: services.items.length, nodes: nodes.items.length }));
}

run().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
