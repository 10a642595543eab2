// Server-side selectors: what kube-proxy asks the API server for, so unwanted objects are never sent.

export const SERVICE_PROXY_NAME_LABEL = 'service.kubernetes.io/service-proxy-name';
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
export const DISABLED_NAMESPACE_LABEL = 'networking.k8s.io/kube-proxy';
export const DISABLED_NAMESPACE_VALUE = 'disabled';

/**
 * Upstream (cmd/kube-proxy/app/server.go) applies one selector to both Services and EndpointSlices:
 * no service-proxy-name label (another proxy owns it) and no headless label (set on the slices of
 * headless Services).
 */
export const SERVICE_LABEL_SELECTOR = `!${SERVICE_PROXY_NAME_LABEL},!${HEADLESS_LABEL}`;

export const DISABLED_NAMESPACES_SELECTOR = `${DISABLED_NAMESPACE_LABEL}=${DISABLED_NAMESPACE_VALUE}`;

export function nodeFieldSelector(nodeName: string): string {
  if (!nodeName) throw new Error('nodeName: must not be empty');
  return `metadata.name=${nodeName}`;
}

/**
 * `metadata.namespace!=a,metadata.namespace!=b,...` (sorted, so the same set gives the same URL),
 * or undefined for an empty set.
 */
export function excludeNamespacesSelector(namespaces: Iterable<string>): string | undefined {
  const sorted = [...namespaces].sort();
  return sorted.length === 0 ? undefined : sorted.map((n) => `metadata.namespace!=${n}`).join(',');
}
