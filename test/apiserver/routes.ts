// Maps an API path to the resource it names (the subset of the REST layout kube-proxy touches).
import { Resource } from './store';

export interface Route {
  /** 'events' accepts POSTs only. */
  resource: Resource | 'events';
  namespace?: string;
  name?: string;
}

const GROUP_PREFIX: Record<string, Array<Resource | 'events'>> = {
  '/api/v1': ['services', 'nodes', 'namespaces', 'events'],
  '/apis/discovery.k8s.io/v1': ['endpointslices'],
  '/apis/events.k8s.io/v1': ['events'],
  '/apis/networking.k8s.io/v1': ['servicecidrs'],
};

export function parseRoute(pathname: string): Route | undefined {
  for (const [prefix, resources] of Object.entries(GROUP_PREFIX)) {
    if (!pathname.startsWith(prefix + '/')) continue;
    const parts = pathname.slice(prefix.length + 1).split('/').filter((p) => p !== '').map(decodeURIComponent);
    const isRes = (s: string | undefined): s is Resource | 'events' => s !== undefined && (resources as string[]).includes(s);
    if (parts[0] === 'namespaces' && parts.length >= 3 && isRes(parts[2]) && parts.length <= 4) {
      return { resource: parts[2], namespace: parts[1], name: parts[3] };
    }
    if (isRes(parts[0]) && parts.length <= 2) return { resource: parts[0], name: parts[1] };
  }
  return undefined;
}
