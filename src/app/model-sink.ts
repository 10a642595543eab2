// What the API watchers deliver, applied to the model (ProxyState): a change the model takes is
// queued for the health check and asks the runner for a sync; the first complete list starts the
// runner. The Node also goes to the health check, which judges the node's eligibility by it.
import type { Log } from '../base/log';
import type { ProxyState } from '../core';
import type { ProxyHealth } from '../health/proxy-health';
import type { ClusterEventSink } from '../k8s/sink';

export interface ModelSinkDeps {
  state: Pick<ProxyState, 'onService' | 'onEndpointSlice' | 'onNode' | 'onServiceCIDRs'>;
  health: Pick<ProxyHealth, 'syncNode'>;
  /** SyncLoop.queued: a change reached the model; `all` when it concerns every family (topology, Service CIDRs). */
  queued(scope?: 'model' | 'all'): void;
  runner: { start(): void; run(): void };
  /** SyncLoop.started: the first complete list is in and syncing starts. */
  started?(): void;
  log: Pick<Log, 'info'>;
}

export function modelSink(d: ModelSinkDeps): ClusterEventSink {
  const { state, runner, log } = d;
  const changed = (taken: boolean, scope: 'model' | 'all' = 'model'): void => {
    if (!taken) return;
    d.queued(scope);
    runner.run();
  };
  return {
    onService: (kind, svc) => changed(state.onService(kind, svc)),
    onEndpointSlice: (kind, slice) => changed(state.onEndpointSlice(kind, slice)),
    onNode: (node) => {
      d.health.syncNode(node);
      changed(state.onNode(node), 'all');
    },
    onNamespaceDisabledChange: (namespace, disabled) => log.info({ namespace, disabled }, 'Namespace proxying changed'),
    onServiceCIDRs: (cidrs) => changed(state.onServiceCIDRs(cidrs), 'all'),
    onSynced: () => {
      log.info({}, 'Services and EndpointSlices listed; starting to sync');
      d.started?.();
      runner.start();
      runner.run();
    },
  };
}
