// One watch request: newline-delimited JSON events read from our own GET (api-request.ts), abortable at
// any time and given up when it stays silent too long. How long is too long depends on whether the
// server has sent a bookmark on this stream yet (deadlines.ts: watchSilenceLimitMs).
import type { IncomingMessage } from 'node:http';
import { AbortedError, ApiConnection, DeadlineError, PendingResponse, Query } from './api-request';
import { watchSilenceLimitMs } from './deadlines';

export type WatchEnd = 'closed' | 'aborted';

export interface WatchStream {
  /** 'closed' when the server ended the stream, 'aborted' after abort(); rejects on errors and deadlines. */
  done: Promise<WatchEnd>;
  abort(): void;
}

export interface WatchRequest {
  path: string;
  /** Query parameters besides `watch` and `timeoutSeconds`. */
  params: Query;
  /** Asked of the server, which ends the watch after it. */
  timeoutSeconds: number;
  /** The server answered 200: the stream is open. */
  onOpen(): void;
  onEvent(type: string, obj: unknown): void;
}

/** One event line may hold one object; the API server caps objects at a few MiB. Beyond this the stream is garbage. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

export function openWatch(conn: ApiConnection, r: WatchRequest): WatchStream {
  const pending = conn.get(r.path, { ...r.params, watch: true, timeoutSeconds: r.timeoutSeconds });
  let aborted = false;
  const run = async (): Promise<WatchEnd> => {
    const res = await pending.response;
    if (res.statusCode !== 200) throw await conn.failureOf(res, pending, r.path);
    // Readers first: onOpen may abort this very watch. Events come later, from 'data'.
    const events = readEvents(res, pending, conn, r);
    r.onOpen();
    return await events;
  };
  const done = run().catch((e: unknown) => {
    if (aborted && e instanceof AbortedError) return 'aborted' as const;
    throw e;
  });
  return {
    done,
    abort: () => {
      aborted = true;
      pending.abort(new AbortedError(`watch ${r.path}: aborted`));
    },
  };
}

function readEvents(res: IncomingMessage, pending: PendingResponse, conn: ApiConnection, r: WatchRequest): Promise<WatchEnd> {
  const what = `watch ${r.path}`;
  return new Promise<WatchEnd>((resolve, reject) => {
    let bookmarkSeen = false;
    let partial = '';
    let silence: NodeJS.Timeout | undefined;
    let ended = false;
    const arm = (): void => {
      clearTimeout(silence);
      const ms = watchSilenceLimitMs(conn.deadlines, r.timeoutSeconds, bookmarkSeen);
      const why = bookmarkSeen ? 'since the last event or bookmark' : `with no bookmark yet, past its ${r.timeoutSeconds}s timeout`;
      silence = setTimeout(() => pending.abort(new DeadlineError(`${what}: stalled: nothing received for ${ms / 1000}s ${why}`)), ms).unref();
    };
    const finish = (err?: Error): void => {
      if (ended) return;
      ended = true;
      clearTimeout(silence);
      if (err) reject(err);
      else resolve('closed');
    };
    const line = (text: string): void => {
      if (text.trim() === '') return;
      let ev: { type?: unknown; object?: unknown };
      try {
        ev = JSON.parse(text) as typeof ev;
      } catch {
        return pending.abort(new Error(`${what}: undecodable event: ${text.slice(0, 120)}`));
      }
      if (typeof ev?.type !== 'string') return pending.abort(new Error(`${what}: event without a type: ${text.slice(0, 120)}`));
      if (ev.type === 'BOOKMARK') bookmarkSeen = true;
      r.onEvent(ev.type, ev.object);
    };
    arm();
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      partial += chunk;
      let start = 0;
      for (let nl = partial.indexOf('\n'); nl >= 0 && !pending.isAborted(); nl = partial.indexOf('\n', start)) {
        line(partial.slice(start, nl));
        start = nl + 1;
      }
      partial = partial.slice(start);
      if (partial.length > MAX_LINE_BYTES) pending.abort(new Error(`${what}: an event line longer than ${MAX_LINE_BYTES} bytes`));
      if (!pending.isAborted()) arm();
    });
    // A last line cut short (no newline) is dropped: the watch resumes from the last complete event.
    res.on('end', () => finish());
    res.on('error', (e) => finish(e));
    res.on('close', () => finish(res.complete ? undefined : new Error(`${what}: connection closed mid-stream`)));
  });
}
