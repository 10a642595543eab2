// Shared pieces for the watcher tests: a sink that records everything, object builders, polling.
import type { V1EndpointSlice, V1Node, V1Service } from '@kubernetes/client-node';
import { ClusterWatcher, type ClusterWatcherOptions } from '../../src/k8s/cluster-watcher';
import { loadKubeConfig } from '../../src/k8s/kubeconfig';
import type { Log } from '../../src/base/log';
import type { ClusterEventSink, EventKind } from '../../src/k8s/sink';
import { after, afterEach, before, beforeEach } from 'node:test';
import { makeTestCerts, type TestCerts } from '../apiserver/certs';
import { TestApiServer } from '../apiserver/server';
import type { KObject } from '../apiserver/store';

export class RecordingSink implements ClusterEventSink {
  readonly services = new Map<string, V1Service>();
  readonly slices = new Map<string, V1EndpointSlice>();
  node?: V1Node;
  nodeEvents = 0;
  synced = 0;
  /** The last Service CIDRs delivered (undefined: none yet), and every delivery in order. */
  serviceCIDRs?: string[];
  readonly serviceCIDRUpdates: string[][] = [];
  readonly log: string[] = [];
  /** Called on every namespace flip with the sink's state at that instant. */
  onFlip?: (namespace: string, disabled: boolean) => void;

  onService(kind: EventKind, svc: V1Service): void {
    const k = `${svc.metadata!.namespace}/${svc.metadata!.name}`;
    this.log.push(`service ${kind} ${k}`);
    if (kind === 'delete') this.services.delete(k);
    else this.services.set(k, svc);
  }
  onEndpointSlice(kind: EventKind, slice: V1EndpointSlice): void {
    const k = `${slice.metadata!.namespace}/${slice.metadata!.name}`;
    this.log.push(`slice ${kind} ${k}`);
    if (kind === 'delete') this.slices.delete(k);
    else this.slices.set(k, slice);
  }
  onNode(node: V1Node | undefined): void {
    this.nodeEvents++;
    this.node = node;
  }
  onNamespaceDisabledChange(namespace: string, disabled: boolean): void {
    this.log.push(`namespace ${namespace} disabled=${disabled}`);
    this.onFlip?.(namespace, disabled);
  }
  onServiceCIDRs(cidrs: string[]): void {
    this.log.push(`cidrs ${cidrs.join(',')}`);
    this.serviceCIDRs = cidrs;
    this.serviceCIDRUpdates.push(cidrs);
  }
  onSynced(): void {
    this.log.push('synced');
    this.synced++;
  }
  serviceKeys(): string[] {
    return [...this.services.keys()].sort();
  }
  sliceKeys(): string[] {
    return [...this.slices.keys()].sort();
  }
}

export async function waitFor(what: string, pred: () => boolean, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function service(namespace: string, name: string, labels: Record<string, string> = {}): KObject {
  return {
    metadata: { namespace, name, labels },
    spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
  };
}

export function slice(namespace: string, service: string, name = `${service}-abc`, labels: Record<string, string> = {}): KObject {
  return {
    metadata: { namespace, name, labels: { 'kubernetes.io/service-name': service, ...labels } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  };
}

export function namespace(name: string, labels: Record<string, string> = {}): KObject {
  return { metadata: { name, labels } };
}

export function node(name: string): KObject {
  return { metadata: { name, labels: { 'topology.kubernetes.io/zone': 'z1' } }, spec: { podCIDRs: ['10.244.0.0/24'] } };
}

export function serviceCIDR(name: string, cidrs: unknown[]): KObject {
  return { metadata: { name }, spec: { cidrs } };
}

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  obj: Record<string, unknown>;
  msg: string;
}

/** A Log that keeps every entry. */
export function recordingLogger(): Log & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (obj: object, msg: string) => void entries.push({ level, obj: obj as Record<string, unknown>, msg });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), fatal: at('fatal') };
}

export const FAST_BACKOFF = { initialMs: 20, maxMs: 200, factor: 2, jitter: 0 };

/** A started ClusterWatcher for node-a against the test API server, with fast backoff. */
export function startTestWatcher(api: TestApiServer, sink: ClusterEventSink, extra: Partial<ClusterWatcherOptions> = {}): ClusterWatcher {
  const watcher = new ClusterWatcher({
    kubeConfig: loadKubeConfig({ kubeconfig: api.kubeconfig() }),
    nodeName: 'node-a',
    sink,
    backoff: FAST_BACKOFF,
    ...extra,
  });
  watcher.start();
  return watcher;
}

/** A fresh test API server for each test; after it, the watcher the test started and the server stop. */
export function serverPerTest(): { api: TestApiServer; watcher: ClusterWatcher | undefined } {
  const t = { api: undefined as unknown as TestApiServer, watcher: undefined as ClusterWatcher | undefined };
  beforeEach(async () => {
    t.api = new TestApiServer();
    await t.api.start();
  });
  afterEach(async () => {
    t.watcher?.stop();
    t.watcher = undefined;
    await t.api.stop();
  });
  return t;
}

/** A test API server over TLS that wants client certificates signed by its CA, for one describe block. */
export function tlsServerPerSuite(): { certs: TestCerts; api: TestApiServer } {
  const suite = {} as { certs: TestCerts; api: TestApiServer };
  before(async () => {
    suite.certs = makeTestCerts();
    suite.api = new TestApiServer({ tls: { key: suite.certs.serverKey, cert: suite.certs.serverCert, clientCa: suite.certs.ca } });
    await suite.api.start();
  });
  after(() => suite.api.stop());
  return suite;
}
