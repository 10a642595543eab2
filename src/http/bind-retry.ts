// bindAddressHardFail as upstream's serveHealthz/serveMetrics: with it, a server that cannot listen
// stops the start (the process exits); without it (the default), the proxy runs on and tries again
// every 5 s until the address is free, logging the failure the first time and then once a minute.
import type { Clock } from '../base/clock';
import type { Log } from '../base/log';
import type { RunningServer } from './listen';

export const BIND_RETRY_MS = 5_000;
/** Retries logged: the first failure, then one in this many (a minute at 5 s). */
const LOG_EVERY = 12;

export interface BindRetryOptions {
  /** 'healthz' or 'metrics', for the log. */
  name: string;
  hardFail: boolean;
  log: Pick<Log, 'info' | 'error'>;
  clock: Pick<Clock, 'setTimer' | 'clearTimer'>;
  retryMs?: number;
}

/** The server `start` makes; its `port` is 0 while it is not listening yet. */
export async function serveWithBindRetry(start: () => Promise<RunningServer>, o: BindRetryOptions): Promise<RunningServer> {
  if (o.hardFail) return start();
  let current: RunningServer | undefined;
  let timer: unknown;
  let closed = false;
  let failures = 0;
  const attempt = async (): Promise<void> => {
    timer = undefined;
    try {
      const server = await start();
      if (closed) return void (await server.close());
      current = server;
      if (failures > 0) o.log.info({ server: o.name, failures }, `The ${o.name} server is listening now`);
    } catch (e) {
      if (closed) return;
      if (failures++ % LOG_EVERY === 0) {
        o.log.error({ server: o.name, err: (e as Error).message, failures, retryInMs: o.retryMs ?? BIND_RETRY_MS },
          `The ${o.name} server cannot listen; retrying (bindAddressHardFail is false)`);
      }
      timer = o.clock.setTimer(() => void attempt(), o.retryMs ?? BIND_RETRY_MS);
    }
  };
  await attempt();
  return {
    get port() { return current?.port ?? 0; },
    async close() {
      closed = true;
      if (timer !== undefined) o.clock.clearTimer(timer);
      await current?.close();
    },
  };
}

/** Upstream's "Set empty to disable" for healthzBindAddress and metricsBindAddress (serveHealthz and
 *  serveMetrics return at once on an empty address): nothing listens, and the port reads 0. */
export async function serveUnlessDisabled(address: string, start: () => Promise<RunningServer>, o: BindRetryOptions): Promise<RunningServer> {
  if (address === '') {
    o.log.info({ server: o.name }, `The ${o.name} server is disabled (its bind address is empty)`);
    return { port: 0, close: async () => {} };
  }
  return serveWithBindRetry(start, o);
}
