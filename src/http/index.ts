// Public face of the HTTP serving shared by src/health and src/metrics: the hardened server, binding
// (`host:port` settings, listen with the setting named in errors) and answering.
export { createHardenedServer, serveHardened } from './hardened-server';
export type { HardenedServer, HardenedServerOptions, HttpLog, RequestHandler } from './hardened-server';
export { DEFAULT_HTTP_LIMITS, resolveLimits } from './limits';
export type { HttpLimits } from './limits';
export { listen } from './listen';
export { parseBindAddress } from './bind-address';
export type { BindAddress } from './bind-address';
export type { RunningServer } from './listen';
export { cleanPath, escapePath, parseRequestTarget, percentDecode } from './request-target';
export type { RequestTarget, TargetResult } from './request-target';
export { notFound, sendText } from './respond';
export { LogLimiter } from './log-limiter';
export type { LimitedLine, Scheduler } from './log-limiter';
export { BIND_RETRY_MS, serveUnlessDisabled, serveWithBindRetry } from './bind-retry';
export type { BindRetryOptions } from './bind-retry';
