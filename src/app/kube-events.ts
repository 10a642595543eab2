// The Kubernetes Events upstream's kube-proxy records, with its reasons, actions and notes
// (cmd/kube-proxy/app/server.go, server_linux.go; pkg/proxy/healthcheck/service_health.go), and the
// recorder they go through (src/k8s/event-recorder.ts: bounded, never blocking, never failing).
import * as os from 'node:os';
import type { Log } from '../base/log';
import { EventRecorder, type ObjectRef } from '../k8s/event-recorder';
import { postEvent } from '../k8s/events-client';
import type { ApiCredentials } from '../k8s/api-credentials';
import type { RequestObserver } from '../k8s/api-request';
import type { ReadOnlySysFSEvent } from '../conntrack/sysctls';

/** One POST's deadline: an event is worth less than a watch, and nothing waits for it. */
const POST_TIMEOUT_MS = 15_000;

export function eventRecorder(credentials: ApiCredentials, log: Pick<Log, 'warn' | 'debug'>, requests?: RequestObserver): EventRecorder {
  return new EventRecorder({ post: (ns, e) => postEvent(credentials, ns, e, POST_TIMEOUT_MS, requests), hostname: os.hostname(), log });
}

/** Upstream's s.NodeRef: the Node by name, its name standing in for the UID. */
export function nodeRef(nodeName: string): ObjectRef {
  return { kind: 'Node', name: nodeName, uid: nodeName };
}

/** The "birth cry", once the watches are started (server.go birthCry). */
export function recordStarting(r: EventRecorder, nodeName: string): void {
  r.eventf(nodeRef(nodeName), 'Normal', 'Starting', 'StartKubeProxy', '');
}

/** A health-check node port could not be opened (service_health.go SyncServices). */
export function recordFailedServiceHealthcheck(r: EventRecorder, service: { namespace: string; name: string }, message: string): void {
  const ref: ObjectRef = { kind: 'Service', namespace: service.namespace, name: service.name, uid: `${service.namespace}/${service.name}` };
  r.eventf(ref, 'Warning', 'FailedToStartServiceHealthcheck', 'Listen', message);
}

/**
 * Ours (upstream has no such event): a Service claimed an address, port or NodePort another Service
 * owns, and the claim was refused (core/address-ownership). Recorded on the claimant, once per refusal.
 * Named by the Service's real UID: `kubectl describe service` selects events by involvedObject.uid,
 * so one made with the "namespace/name" stand-in above (upstream's, for its health-check event) is
 * listed by `kubectl get events` but never by describe. The stand-in only when the UID is unknown.
 */
export function recordClaimRefused(r: EventRecorder, service: { namespace: string; name: string; uid?: string }, message: string): void {
  const ref: ObjectRef = { kind: 'Service', namespace: service.namespace, name: service.name, uid: service.uid || `${service.namespace}/${service.name}` };
  r.eventf(ref, 'Warning', 'AddressClaimRefused', 'Program', message);
}

/** With bindAddressHardFail, the healthz or metrics server could not listen and the proxy exits (server.go Run). */
export function recordFailedServer(r: EventRecorder, nodeName: string, server: 'healthz' | 'metrics', err: unknown): void {
  const reason = server === 'healthz' ? 'FailedToStartProxierHealthcheck' : 'FailedToStartMetricServer';
  r.eventf(nodeRef(nodeName), 'Warning', reason, 'StartKubeProxy', err instanceof Error ? err.message : String(err));
}

/** The hash table could not be raised because /sys is mounted read-only (server_linux.go setupConntrack);
 *  the event's content is src/conntrack's, which found it. */
export function recordReadOnlySysFs(r: EventRecorder, nodeName: string, ev: ReadOnlySysFSEvent): void {
  r.eventf(nodeRef(nodeName), ev.type, ev.reason, ev.action, ev.note);
}
