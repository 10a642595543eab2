// Authentication, as upstream: --kubeconfig file, --master overriding its server, or in-cluster.
import * as fs from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

export interface ConnectionFlags {
  kubeconfig?: string;
  master?: string;
}

const inCluster = (): boolean =>
  !!process.env.KUBERNETES_SERVICE_HOST && fs.existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token');

export function loadKubeConfig(flags: ConnectionFlags): KubeConfig {
  const kc = new KubeConfig();
  if (flags.kubeconfig) {
    if (!fs.existsSync(flags.kubeconfig)) throw new Error(`--kubeconfig: file ${flags.kubeconfig} does not exist`);
    kc.loadFromFile(flags.kubeconfig);
    if (!kc.getCurrentCluster()) throw new Error(`--kubeconfig: ${flags.kubeconfig} has no current cluster`);
  } else if (inCluster()) {
    kc.loadFromCluster();
  } else if (!flags.master) {
    throw new Error('no API server configured: give --kubeconfig or --master, or run in a cluster');
  }
  if (flags.master) {
    let url: URL;
    try {
      url = new URL(flags.master);
    } catch {
      throw new Error(`--master: ${JSON.stringify(flags.master)} is not a URL`);
    }
    const server = url.toString().replace(/\/$/, '');
    // client-node refuses plain http unless verification is off; an http:// master has no TLS to verify.
    const plain = url.protocol === 'http:';
    const current = kc.getCurrentCluster();
    if (current) {
      // --master wins over the kubeconfig's server, as with client-go's BuildConfigFromFlags.
      kc.clusters = kc.clusters.map((c) => (c.name === current.name ? { ...c, server, skipTLSVerify: c.skipTLSVerify || plain } : c));
    } else {
      kc.loadFromClusterAndUser({ name: 'master', server, skipTLSVerify: plain }, { name: 'user' });
    }
  }
  return kc;
}
