// Shared helpers for configuration tests: an in-memory file reader and one-call loaders.
import { CommandLine, Io, parseCommandLine } from '../../src/config';

export const V1 = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n';
export const V2 = 'apiVersion: kubeproxy.config.k8s.io/v1alpha2\nkind: KubeProxyConfiguration\n';

export function memIo(files: Record<string, string | Uint8Array>): Io {
  return {
    readFile(p: string) {
      if (!(p in files)) throw new Error(`ENOENT: no such file or directory, open '${p}'`);
      return files[p];
    },
  };
}

/** Runs the command line with `--config c.yaml` holding `data`, plus extra flags. */
export function withFile(data: string | Uint8Array, ...flags: string[]): CommandLine {
  return parseCommandLine(['--config', 'c.yaml', ...flags], memIo({ 'c.yaml': data }));
}
