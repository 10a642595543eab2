// Authentication, as upstream: --kubeconfig file, --master overriding its server, or in-cluster.
// Our own loader handles the common cases; a kubeconfig needing a credential plugin or a proxy goes
// to client-node, loaded only then (client-node-credentials.ts).
import * as fs from 'node:fs';
import type { ApiCredentials } from './api-credentials';
import { clientNodeCredentials } from './client-node-credentials';
import { inClusterConfig, runsInCluster, SERVICE_ACCOUNT_DIR } from './in-cluster';
import { readKubeconfigFile, requireFiles, type KubeconfigSelection } from './kubeconfig-file';
import { nativeCredentials, type TokenFileOptions } from './native-credentials';

export type { ApiCredentials } from './api-credentials';

export interface ConnectionFlags {
  kubeconfig?: string;
  master?: string;
}

export interface LoadOptions extends TokenFileOptions {
  /** Where the in-cluster service account is mounted (tests point it elsewhere). */
  serviceAccountDir?: string;
  env?: NodeJS.ProcessEnv;
}

/** What deploy/configmap.yaml ships until the operator fills in the API server's address. */
export const PLACEHOLDER_SERVER_HOST = 'API_SERVER_ADDRESS';

export function loadKubeConfig(flags: ConnectionFlags, o: LoadOptions = {}): ApiCredentials {
  const master = flags.master ? masterServer(flags.master) : undefined;
  const env = o.env ?? process.env;
  const saDir = o.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  if (flags.kubeconfig) {
    const file = flags.kubeconfig;
    if (!fs.existsSync(file)) throw new Error(`--kubeconfig: file ${file} does not exist`);
    const kc = readKubeconfigFile(file);
    if (!master) checkServer(kc.cluster.server, file);
    requireFiles(kc.files);
    if (kc.user.plugin || kc.cluster.proxyUrl) return clientNodeCredentials(file, kc.user.tokenFile, master);
    return withServer(kc, master, `--kubeconfig: ${file}`, o);
  }
  if (runsInCluster(env, saDir)) return withServer(inClusterConfig(env, saDir), master, 'in-cluster', o);
  if (master) return nativeCredentials({ server: master, skipTLSVerify: false }, {});
  throw new Error('no API server configured: give --kubeconfig or --master, or run in a cluster');
}

/** --master wins over the kubeconfig's server, as with client-go's BuildConfigFromFlags. */
function withServer(kc: KubeconfigSelection, master: string | undefined, where: string, o: TokenFileOptions): ApiCredentials {
  try {
    return nativeCredentials(master ? { ...kc.cluster, server: master } : kc.cluster, kc.user, o);
  } catch (e) {
    throw new Error(`${where}: ${(e as Error).message}`, { cause: e });
  }
}

function masterServer(master: string): string {
  let url: URL;
  try {
    url = new URL(master);
  } catch {
    throw new Error(`--master: ${JSON.stringify(master)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`--master: ${JSON.stringify(master)} is not an http:// or https:// URL`);
  return url.toString().replace(/\/$/, '');
}

function checkServer(server: string, file: string): void {
  if (server.includes(PLACEHOLDER_SERVER_HOST)) {
    throw new Error(`--kubeconfig: ${file} still has the placeholder server ${server}: put your API server's address there (deploy/configmap.yaml explains why it is not the kubernetes Service)`);
  }
}
