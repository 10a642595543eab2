// The one Service `explain` is asked about, and its EndpointSlices, as the API server holds them:
// read directly (a field selector and a label selector), not through the proxy's filtered watch, so
// that explain can say why a Service the proxy does not handle is left out.
import type { KubernetesObject, V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { ApiConnection } from '../k8s/api-request';
import type { ApiCredentials } from '../k8s/api-credentials';
import { resourceClients, type ResourceClient } from '../k8s/resources';

export interface ServiceAndSlices {
  /** Absent when the API server has no such Service. */
  service?: V1Service;
  /** The Service carries the service-proxy-name label (another proxy's; the watch never lists it). */
  otherProxy: boolean;
  slices: V1EndpointSlice[];
}

export const SERVICE_PROXY_NAME_LABEL = 'service.kubernetes.io/service-proxy-name';

/** Every page of one namespace's list with these selectors. */
async function listAll<T extends KubernetesObject>(c: ResourceClient<T>, opts: { namespace: string; fieldSelector?: string; labelSelector?: string }): Promise<T[]> {
  const out: T[] = [];
  let continueToken: string | undefined;
  do {
    const page = await c.list({ ...opts, limit: 500, ...(continueToken ? { continueToken } : {}) });
    if (page.rejected.length > 0) {
      throw new Error(`the API server sent ${c.name} of the wrong shape: ${page.rejected.map((r) => `${r.key}: ${r.error}`).join('; ')}`);
    }
    out.push(...page.items);
    continueToken = page.continueToken;
  } while (continueToken);
  return out;
}

export async function fetchServiceAndSlices(credentials: ApiCredentials, namespace: string, name: string): Promise<ServiceAndSlices> {
  const clients = resourceClients(new ApiConnection(credentials));
  const byName = { namespace, fieldSelector: `metadata.name=${name}` };
  // The objects keep only the fields the proxy reads (not labels): the label is asked by a selector.
  const [services, labelled, slices] = await Promise.all([
    listAll(clients.services, byName),
    listAll(clients.services, { ...byName, labelSelector: SERVICE_PROXY_NAME_LABEL }),
    listAll(clients.endpointSlices, { namespace, labelSelector: `kubernetes.io/service-name=${name}` }),
  ]);
  return { ...(services[0] ? { service: services[0] } : {}), otherProxy: labelled.length > 0, slices };
}
