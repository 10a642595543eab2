// An HTTP server that no request can crash and no client can hold: the request target is parsed
// without throwing, a handler's exception or rejection becomes a 500 and a (rate-limited) log line,
// parser errors get 400/408/431 and a closed connection, slow and idle clients are cut off, bodies are
// capped, and connections beyond a cap are refused. Shared by /healthz, /metrics and the health-check
// node ports.
import type { Log } from '../base/log';
import * as http from 'node:http';
import type { Socket } from 'node:net';
import { clientErrorStatus, rawResponse } from './client-error';
import { type HttpLimits, resolveLimits } from './limits';
import { listen, type RunningServer } from './listen';
import { LogLimiter } from './log-limiter';
import { parseRequestTarget, type RequestTarget } from './request-target';
import { sendText } from './respond';

export type HttpLog = Pick<Log, 'warn' | 'error'>;

export interface HardenedServerOptions {
  /** Names the server in log lines, e.g. "healthz" or "healthCheckNodePort shop/web". */
  name: string;
  log?: HttpLog;
  limits?: Partial<HttpLimits>;
}

export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse, target: RequestTarget) => void | Promise<void>;

/** After answering a bad request, the time the client gets to read it before the socket is destroyed. */
const LINGER_MS = 500;
/** Longest piece of a client's request target copied into a log line. */
const LOGGED_TARGET = 200;

interface ServerLogs {
  bad: LogLimiter;
  failed: LogLimiter;
}

function serverLogs(name: string, log: HttpLog | undefined, intervalMs: number): ServerLogs {
  return {
    bad: new LogLimiter(({ count, kinds, first }) => log?.warn({ server: name, count, kinds, first }, 'Refused bad HTTP requests'), intervalMs),
    failed: new LogLimiter(({ count, kinds, first }) => log?.error({ server: name, count, kinds, first }, 'HTTP handler failed; answered 500'), intervalMs),
  };
}

const clip = (s: string | undefined): string => (s === undefined ? '' : s.length > LOGGED_TARGET ? `${s.slice(0, LOGGED_TARGET)}...` : s);

export interface HardenedServer {
  server: http.Server;
  /** Writes out what the log limiters still hold (on close). */
  flushLogs(): void;
  /** Receives the server's own errors after start-up. */
  onServerError(err: Error): void;
}

export function createHardenedServer(o: HardenedServerOptions, handler: RequestHandler): HardenedServer {
  const limits = resolveLimits(o.limits);
  const logs = serverLogs(o.name, o.log, limits.logIntervalMs);
  const inFlight = new WeakMap<Socket, http.ServerResponse>();
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
      maxHeaderSize: limits.maxHeaderBytes,
    },
    (req, res) => onRequest(req, res),
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  server.maxHeadersCount = limits.maxHeaderFields;
  server.setTimeout(limits.idleTimeoutMs);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => onClientError(err, socket));
  server.on('drop', (d?: { remoteAddress?: string }) => logs.bad.note('connection limit', { remote: d?.remoteAddress, maxConnections: limits.maxConnections }));

  function refuse(req: http.IncomingMessage, res: http.ServerResponse, status: number, kind: string): void {
    logs.bad.note(kind, { remote: req.socket.remoteAddress, method: req.method, target: clip(req.url) });
    sendText(res, status, `${status} ${http.STATUS_CODES[status]}\n`, { Connection: 'close' });
  }

  function fail(req: http.IncomingMessage, res: http.ServerResponse, err: unknown): void {
    logs.failed.note('handler error', { method: req.method, target: clip(req.url), err: err instanceof Error ? err.stack ?? err.message : String(err) });
    try {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      for (const h of res.getHeaderNames()) res.removeHeader(h);
      sendText(res, 500, '500 Internal Server Error\n', { Connection: 'close' });
    } catch {
      res.destroy();
    }
  }

  function run(req: http.IncomingMessage, res: http.ServerResponse, target: RequestTarget): void {
    try {
      const done = handler(req, res, target);
      if (done) done.then(undefined, (err: unknown) => fail(req, res, err));
    } catch (err) {
      fail(req, res, err);
    }
  }

  function onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    try {
      const socket = req.socket;
      inFlight.set(socket, res);
      res.once('close', () => {
        if (inFlight.get(socket) === res) inFlight.delete(socket);
      });
      // More fields than the limit: Node 20 still parses them all but lists only some (at least one past
      // the limit, measured); later Nodes refuse in the parser (431 from onClientError).
      if (req.rawHeaders.length > 2 * limits.maxHeaderFields) return refuse(req, res, 431, 'too many header fields');
      // Node has checked Content-Length is digits; a huge one is refused before a byte of it is read.
      if (Number(req.headers['content-length'] ?? 0) > limits.maxBodyBytes) return refuse(req, res, 413, 'body too large');
      const parsed = parseRequestTarget(req.url);
      if (!parsed.ok) return refuse(req, res, 400, parsed.reason);
      // These endpoints take no body: one is read and dropped (up to the cap) before answering.
      let received = 0;
      let refused = false;
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > limits.maxBodyBytes && !refused) {
          refused = true;
          refuse(req, res, 413, 'body too large');
        }
      });
      req.on('error', () => undefined); // an aborted request: the socket is gone, nothing to answer
      req.on('end', () => refused || run(req, res, parsed.target));
    } catch (err) {
      fail(req, res, err);
    }
  }

  const answered = new WeakSet<Socket>();
  function onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
    if (answered.has(socket)) return;
    answered.add(socket);
    const status = clientErrorStatus(err.code);
    if (status === undefined) {
      socket.destroy();
      return;
    }
    logs.bad.note(err.code ?? 'parse error', { remote: socket.remoteAddress, error: err.message });
    if (!socket.writable || inFlight.get(socket)?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(rawResponse(status));
    // Give the client a moment to read the answer before unread input turns the close into a reset.
    const t = setTimeout(() => socket.destroy(), LINGER_MS);
    t.unref();
    socket.once('close', () => clearTimeout(t));
  }

  return {
    server,
    flushLogs: () => {
      logs.bad.flush();
      logs.failed.flush();
    },
    onServerError: (err) => logs.failed.note('server error', { err: err.stack ?? err.message }),
  };
}

/** Creates a hardened server and listens on host:port; `what` names the setting in a bind error. */
export async function serveHardened(
  o: HardenedServerOptions & { host: string; port: number; what: string },
  handler: RequestHandler,
): Promise<RunningServer> {
  const h = createHardenedServer(o, handler);
  return listen(h.server, o.host, o.port, o.what, h.onServerError, h.flushLogs);
}
