// Closing what startProxy opened: on stop(), and when start-up fails part-way (then only what was
// opened by then is there to close).
import type { RunningServer } from '../http';

/** What start-up opens, each filled in as soon as it exists. */
export interface OpenedParts {
  /** The mode's kernel sockets (nftables; or IPVS, rtnetlink and nftables). */
  nft?: { close(): void };
  guard?: { stop(): void };
  watcher?: { stop(): void };
  runner?: { stop(): Promise<void> };
  serviceHealth?: { closeAll(): Promise<void> };
  /** Kubernetes Events: what is still queued is dropped. */
  events?: { stop(): void };
  /** The healthz and metrics servers, closed together. */
  servers: RunningServer[];
}

/**
 * Closes the sources of new work first (the guard's repairs, the watches), then lets the sync in
 * flight finish (runner), closes the health-check node ports the syncs opened, the healthz and metrics
 * servers, and last the kernel sockets the syncs use. A step that fails does not keep the
 * later ones from running; the first failure is thrown once all have run.
 */
export async function shutDown(p: OpenedParts): Promise<void> {
  const steps: Array<() => unknown> = [
    () => p.guard?.stop(),
    () => p.watcher?.stop(),
    () => p.runner?.stop(),
    () => p.serviceHealth?.closeAll(),
    () => Promise.all(p.servers.map((s) => s.close())),
    () => p.nft?.close(),
    () => p.events?.stop(),
  ];
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (e) {
      failures.push(e);
    }
  }
  if (failures.length > 0) throw failures[0];
}
