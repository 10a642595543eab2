// What the watchers deliver: the model (src/core) implements this; src/app/model-sink.ts connects the two.
import type { V1EndpointSlice, V1Node, V1Service } from '@kubernetes/client-node';

export type EventKind = 'add' | 'update' | 'delete';

/**
 * Objects hold only the fields the proxy reads (kept-fields.ts). For `'delete'`, only `metadata` is
 * certain to be there (name, namespace, resourceVersion, kept labels): a delete the watcher infers (a
 * relist without the object, a namespace opting out) carries what its cache kept, nothing more.
 */
export interface ClusterEventSink {
  onService(kind: EventKind, svc: V1Service): void;
  onEndpointSlice(kind: EventKind, slice: V1EndpointSlice): void;
  /** This node's Node object; undefined when it is deleted. */
  onNode(node: V1Node | undefined): void;
  /** A namespace gained or lost the `networking.k8s.io/kube-proxy=disabled` label. */
  onNamespaceDisabledChange?(namespace: string, disabled: boolean): void;
  /**
   * The cluster's Service IP ranges: the union of every ServiceCIDR's `spec.cidrs` (sorted, unique,
   * entries that are not CIDRs left out). Called once the ServiceCIDRs are listed, then on each change.
   */
  onServiceCIDRs?(cidrs: string[]): void;
  /**
   * Services and EndpointSlices have both completed their first list, and the first ServiceCIDR list
   * has ended (in success or failure): syncing may start.
   */
  onSynced(): void;
}
