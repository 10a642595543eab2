// kubernetes_build_info as component-base registers it in every component
// (staging/src/k8s.io/component-base/metrics/prometheus/version/metrics.go): a constant 1 labelled
// with the build. Ours describes this project's build, not a Kubernetes release: see docs/metrics.md.
import { Gauge, type Registry } from 'prom-client';

export interface BuildInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** Go's GOARCH names for Node's process.arch, so `platform` reads as upstream's (linux/amd64). */
const GOARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm: 'arm', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' };

/**
 * Our build: major and minor from package.json's version, gitVersion `v<version>`; the commit, tree
 * state and build date are not recorded at build time, so they are empty rather than invented;
 * goVersion is the Node.js version that runs us and compiler the engine (v8), their nearest honest
 * counterparts.
 */
export function buildInfoOf(version: string): BuildInfo {
  const [major = '', minor = ''] = version.split('.');
  return {
    major, minor, gitVersion: `v${version}`, gitCommit: '', gitTreeState: '', buildDate: '',
    goVersion: process.version, compiler: 'v8', platform: `${process.platform}/${GOARCH[process.arch] ?? process.arch}`,
  };
}

export function registerBuildInfo(register: Registry, info: BuildInfo): void {
  const g = new Gauge<keyof BuildInfo>({
    name: 'kubernetes_build_info',
    help: "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
    labelNames: ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'],
    registers: [register],
  });
  g.set({ ...info }, 1);
}
