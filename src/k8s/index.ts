// Public face of the API watchers (wired in src/app).
export { ClusterWatcher } from './cluster-watcher';
export type { ClusterWatcherOptions, WatcherStatus } from './cluster-watcher';
export type { ClusterEventSink, EventKind } from './sink';
export type { ReflectorStatus } from './reflector';
export { loadKubeConfig } from './kubeconfig';
export type { ApiCredentials, ConnectionFlags, LoadOptions } from './kubeconfig';
export { DEFAULT_BACKOFF } from './backoff';
export { DEFAULT_DEADLINES } from './deadlines';
export type { RequestDeadlines } from './deadlines';
export type { RequestObserver } from './api-request';
export type { BackoffOptions } from './backoff';
export * from './selectors';
