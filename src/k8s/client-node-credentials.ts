// The kubeconfigs our loader does not handle (a user with an exec or auth-provider plugin, a cluster
// behind a proxy-url) go to client-node's KubeConfig, exactly as all of them did before. client-node
// is loaded only then: loading it costs ~63 MiB of RSS (docs/memory.md, the process's baseline).
import type { KubeConfig } from '@kubernetes/client-node';
import type { ApiCredentials } from './api-credentials';

/** `tokenFile`: the current user's token file as our loader resolved it, given to client-node's file authenticator. */
export function clientNodeCredentials(file: string, tokenFile?: string, master?: string): ApiCredentials {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const clientNode = require('@kubernetes/client-node') as { KubeConfig: new () => KubeConfig };
  const kc = new clientNode.KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (e) {
    throw new Error(`--kubeconfig: ${file}: ${(e as Error).message}`, { cause: e });
  }
  const current = kc.getCurrentCluster();
  if (!current) throw new Error(`--kubeconfig: ${file} has no current cluster`);
  // client-node knows only `token-file`, read once; its file authenticator reads the file every minute.
  const user = kc.getCurrentUser();
  if (tokenFile && user && !user.token && !user.authProvider && !user.exec) {
    kc.users = kc.users.map((u) => (u.name === user.name ? { ...u, authProvider: { name: 'tokenFile', config: { tokenFile } } } : u));
  }
  if (master) {
    // client-node refuses plain http unless verification is off; an http:// master has no TLS to verify.
    const plain = master.startsWith('http:');
    kc.clusters = kc.clusters.map((c) => (c.name === current.name ? { ...c, server: master, skipTLSVerify: c.skipTLSVerify || plain } : c));
  }
  return { server: master ?? current.server, applyTo: (opts) => kc.applyToHTTPSOptions(opts) };
}
