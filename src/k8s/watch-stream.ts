// One watch request over client-node's Watch, made abortable and guarded by a watchdog.
// client-node sets no read timeout: a connection that dies silently would hang forever. The server
// ends every watch after timeoutSeconds, so silence well beyond that means the connection is gone.
import { KubeConfig, Watch } from '@kubernetes/client-node';

export type WatchEnd = 'closed' | 'aborted';

export interface WatchStream {
  /** 'closed' when the server ended the stream, 'aborted' after abort(); rejects on errors and stalls. */
  done: Promise<WatchEnd>;
  abort(): void;
}

export interface WatchRequest {
  kubeConfig: KubeConfig;
  path: string;
  params: Record<string, string | number | boolean>;
  /** Silence longer than this (ms) is a dead connection. */
  stallMs: number;
  onEvent(type: string, obj: unknown): void;
  /** The server answered 200: the stream is open. */
  onOpen(): void;
}

export function openWatch(r: WatchRequest): WatchStream {
  let controller: AbortController | undefined;
  let aborted = false;
  let stalled = false;
  let settled = false;
  let watchdog: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      stalled = true;
      controller?.abort();
    }, r.stallMs);
    watchdog.unref();
  };
  const done = new Promise<WatchEnd>((resolve, reject) => {
    const finish = (err: unknown): void => {
      settled = true;
      clearTimeout(watchdog);
      if (aborted) resolve('aborted');
      else if (stalled) reject(new Error(`watch stalled: nothing received for ${r.stallMs / 1000}s`));
      else if (err) reject(err);
      else resolve('closed');
    };
    arm();
    const onEvent = (type: string, obj: unknown): void => {
      if (aborted) return;
      arm();
      r.onEvent(type, obj);
    };
    new Watch(r.kubeConfig)
      .watch(r.path, r.params, onEvent, finish)
      .then((c) => {
        controller = c;
        if (aborted || stalled) c.abort();
        else if (!settled) r.onOpen();
      })
      .catch(finish);
  });
  return {
    done,
    abort: () => {
      aborted = true;
      controller?.abort();
    },
  };
}
