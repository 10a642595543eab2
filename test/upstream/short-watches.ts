// A program, not a test: our ClusterWatcher with watches of `timeoutSeconds` N (the installed proxy's
// are 5-10 min, too long for a test to see the bookmark the server sends ~2 s before their end), run by
// apiserver-restart.test.ts inside a node's namespace. Prints one line per Service event it is given.
//   node short-watches.js KUBECONFIG NODE_NAME TIMEOUT_SECONDS
import { ClusterWatcher } from '../../src/k8s/cluster-watcher';
import { loadKubeConfig } from '../../src/k8s/kubeconfig';

const [kubeconfig, nodeName, timeout] = process.argv.slice(2);
const watcher = new ClusterWatcher({
  kubeConfig: loadKubeConfig({ kubeconfig }),
  nodeName,
  watchTimeoutSeconds: () => Number(timeout),
  sink: {
    onService: (kind, svc) => console.log(`service ${kind} ${svc.metadata?.namespace}/${svc.metadata?.name}`),
    onEndpointSlice: () => {},
    onNode: () => {},
    onSynced: () => console.log('synced'),
  },
});
watcher.start();
process.on('SIGTERM', () => process.exit(0));
