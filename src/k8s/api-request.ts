// GET requests to the API server on node:http/https with the TLS settings and credentials of a
// kubeconfig (ApiCredentials: CA, client certificates, bearer token and token files, and through
// client-node exec and auth-provider plugins and proxies). Unlike client-node's Watch and typed APIs,
// every request here can be aborted at any stage, before its headers too, and none waits past its
// deadlines (see deadlines.ts and docs/watching.md).
import * as http from 'node:http';
import * as https from 'node:https';
import type { ApiCredentials } from './api-credentials';
import { RequestDeadlines, resolveDeadlines } from './deadlines';

export type Query = Record<string, string | number | boolean | undefined>;

/** TCP keepalive on every connection, as client-node's Watch sets, so the kernel probes idle ones. */
const KEEPALIVE_DELAY_MS = 30_000;
/** An error answer's body is a small Status object; more than this is not read. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** An answer other than 200, with the API server's Status reason and message when it sent one. */
export class ApiError extends Error {
  /** The HTTP status again: the Reflector, like client-node's ApiException, reads `code`. */
  readonly code: number;

  /**
   * The answer's `Retry-After` in seconds, when it had one: API Priority and Fairness sends 1 with
   * its 429s, and a watch cache still initialising after a restart sends its own with a 429.
   */
  readonly retryAfterSeconds?: number;

  constructor(readonly statusCode: number, message: string, readonly reason?: string, retryAfterSeconds?: number) {
    super(message);
    this.name = 'ApiError';
    this.code = statusCode;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A request abandoned because a deadline passed. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
}

/** A request ended by us (abort() or an AbortSignal). */
export class AbortedError extends Error {
  override readonly name = 'AbortedError';
}

/** A request in flight. */
export interface PendingResponse {
  /** The response once its headers are in, whatever its status; rejects on errors, the deadline or abort. */
  readonly response: Promise<http.IncomingMessage>;
  /** Ends the request at any stage; a body being read then fails with `reason`. */
  abort(reason?: Error): void;
  /** abort() was called (by us, a deadline or an error): nothing more from this request is to be used. */
  isAborted(): boolean;
}

/**
 * Told of every request, as client-go tells its metrics (rest/request.go: updateURLMetrics after each
 * attempt, RequestLatency around request(), which a watch does not go through). src/metrics'
 * RestClientMetrics is one; the app wires it.
 */
export interface RequestObserver {
  /** Once per request: the status code, or `<error>` when it failed before an answer came. */
  requestResult(code: string, method: string, host: string): void;
  /** A non-watch request's duration, from its start until its body was read (or it failed). */
  requestLatency(verb: string, host: string, seconds: number): void;
}

/** As Go's url.URL.Host: the server's authority as written (a port stays even if default), without userinfo. */
export function hostOf(server: string): string {
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(server);
  return m ? m[1].replace(/^.*@/, '') : 'none';
}

export function requestUrl(server: string, path: string, query: Query): URL {
  const url = new URL(server.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  return url;
}

/** One API server, as the kubeconfig's current context names it, with the deadlines its requests keep. */
export class ApiConnection {
  readonly deadlines: RequestDeadlines;

  private readonly host: string;

  constructor(private readonly credentials: ApiCredentials, deadlines: Partial<RequestDeadlines> = {}, private readonly observer?: RequestObserver) {
    this.deadlines = resolveDeadlines(deadlines);
    this.host = hostOf(credentials.server);
  }

  /** Starts a GET; its headers deadline runs from now, authentication included. */
  get(path: string, query: Query): PendingResponse {
    const what = `GET ${path}`;
    let req: http.ClientRequest | undefined;
    let res: http.IncomingMessage | undefined;
    let failure: Error | undefined;
    let rejectHeaders: (e: Error) => void = () => undefined;
    let counted = false;
    const count = (code: string): void => {
      if (counted) return;
      counted = true;
      this.observer?.requestResult(code, 'GET', this.host);
    };
    const abort = (reason: Error = new AbortedError(`${what}: aborted`)): void => {
      if (failure) return;
      failure = reason;
      if (!res) count('<error>');
      clearTimeout(timer);
      rejectHeaders(reason);
      req?.destroy();
      res?.destroy(reason);
    };
    const timer = setTimeout(() => abort(new DeadlineError(`${what}: no response headers within ${this.deadlines.headersMs / 1000}s`)), this.deadlines.headersMs).unref();
    const response = new Promise<http.IncomingMessage>((resolve, reject) => {
      rejectHeaders = reject;
      const server = this.credentials.server;
      let url: URL;
      try {
        url = requestUrl(server, path, query);
      } catch (e) {
        return abort(withContext(`${what}: server ${JSON.stringify(server)}`, e));
      }
      const opts: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' } };
      this.credentials.applyTo(opts).then(
        () => {
          if (failure) return;
          req = (url.protocol === 'https:' ? https : http).request(url, opts);
          req.on('socket', (s) => s.setKeepAlive(true, KEEPALIVE_DELAY_MS));
          req.on('response', (r) => {
            res = r;
            clearTimeout(timer);
            count(String(r.statusCode ?? 0));
            // Readers attach their own; this keeps an abort before they do from being an uncaught 'error'.
            r.on('error', () => undefined);
            if (failure) r.destroy(failure);
            else resolve(r);
          });
          req.on('error', (e) => abort(withContext(what, tlsHint(e, server))));
          req.end();
        },
        (e: unknown) => abort(withContext(`${what}: kubeconfig credentials or TLS settings`, e)),
      );
    });
    // Whoever awaits `response` sees the rejection; this only keeps an early abort from being "unhandled".
    response.catch(() => undefined);
    return { response, abort, isAborted: () => failure !== undefined };
  }

  /**
   * GETs a JSON document (a list page) within the list deadlines; `signal` aborts it. `dropMembers`
   * edits the body's bytes before they are parsed and returns the length to parse (drop-members.ts).
   */
  async getJson(path: string, query: Query, signal?: AbortSignal, dropMembers?: (body: Buffer) => number): Promise<unknown> {
    const started = process.hrtime.bigint();
    try {
      return await this.getJsonUntimed(path, query, signal, dropMembers);
    } finally {
      this.observer?.requestLatency('GET', this.host, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  private async getJsonUntimed(path: string, query: Query, signal?: AbortSignal, dropMembers?: (body: Buffer) => number): Promise<unknown> {
    const pending = this.get(path, query);
    const onAbort = (): void => pending.abort(new AbortedError(`GET ${path}: aborted`));
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await pending.response;
      if (res.statusCode !== 200) throw await this.failureOf(res, pending, path);
      const body = await readBodyBytes(res, pending, this.bodyLimits(path, Infinity));
      const text = body.toString('utf8', 0, dropMembers ? dropMembers(body) : body.length);
      try {
        return JSON.parse(text) as unknown;
      } catch (e) {
        throw new Error(`GET ${path}: the answer is not JSON (${(e as Error).message})`);
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Turns a non-200 answer into an ApiError, with the Status message if it comes within the list deadlines. */
  async failureOf(res: http.IncomingMessage, pending: PendingResponse, path: string): Promise<ApiError> {
    const code = res.statusCode ?? 0;
    const text = await readBody(res, pending, this.bodyLimits(path, MAX_ERROR_BODY_BYTES)).catch(() => '');
    const st = parseStatus(text);
    const reason = st.reason ?? http.STATUS_CODES[code] ?? 'Unknown';
    return new ApiError(code, `GET ${path}: HTTP ${code} ${reason}${st.message ? `: ${st.message}` : ''}`, st.reason, retryAfterSeconds(res.headers['retry-after']));
  }

  private bodyLimits(path: string, maxBytes: number): BodyLimits {
    return { what: `GET ${path}`, idleMs: this.deadlines.listIdleMs, totalMs: this.deadlines.listBodyMs, maxBytes };
  }
}

interface BodyLimits {
  what: string;
  idleMs: number;
  totalMs: number;
  maxBytes: number;
}

/** Reads a whole body as text; `idleMs` of silence, `totalMs` in all or more than `maxBytes` abandons it. */
export async function readBody(res: http.IncomingMessage, pending: PendingResponse, l: BodyLimits): Promise<string> {
  return (await readBodyBytes(res, pending, l)).toString('utf8');
}

/** readBody's bytes: a Buffer of the caller's own, free to edit. */
export function readBodyBytes(res: http.IncomingMessage, pending: PendingResponse, l: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let idle: NodeJS.Timeout | undefined;
    const armIdle = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => pending.abort(new DeadlineError(`${l.what}: nothing received for ${l.idleMs / 1000}s while reading the answer`)), l.idleMs).unref();
    };
    const total = setTimeout(() => pending.abort(new DeadlineError(`${l.what}: the answer took longer than ${l.totalMs / 1000}s`)), l.totalMs).unref();
    let settled = false;
    // 'close' follows 'end': without the flag a list page (megabytes) was joined and decoded twice.
    const finish = (err?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      clearTimeout(total);
      if (err) reject(err);
      // concat copies even a single chunk: the result is nobody else's.
      else resolve(Buffer.concat(chunks));
    };
    armIdle();
    res.on('data', (c: Buffer) => {
      armIdle();
      size += c.length;
      if (size > l.maxBytes) return pending.abort(new Error(`${l.what}: the answer is larger than ${l.maxBytes} bytes`));
      chunks.push(c);
    });
    res.on('end', () => finish());
    res.on('error', (e) => finish(e));
    res.on('close', () => finish(res.complete ? undefined : new Error(`${l.what}: connection closed before the answer was complete`)));
  });
}

/**
 * A `Retry-After` header as whole seconds, as client-go reads it (rest/request.go: retryAfterSeconds
 * takes an integer only; the API server never sends the HTTP-date form). Anything else: undefined.
 */
export function retryAfterSeconds(header: string | string[] | undefined): number | undefined {
  const v = Array.isArray(header) ? header[0] : header;
  return v !== undefined && /^\s*\d+\s*$/.test(v) ? Number(v) : undefined;
}

/** The reason and message of a Kubernetes Status object, if `text` is one. */
export function parseStatus(text: string): { reason?: string; message?: string } {
  try {
    const st = JSON.parse(text) as { kind?: unknown; reason?: unknown; message?: unknown };
    if (st?.kind !== 'Status') return {};
    return { reason: typeof st.reason === 'string' && st.reason ? st.reason : undefined, message: typeof st.message === 'string' ? st.message : undefined };
  } catch {
    return {};
  }
}

/** Node's codes for a server certificate that did not verify (tls.checkServerIdentity and OpenSSL's). */
const CERT_CODES = /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_\w+|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/**
 * A certificate error says which server and what to check, as client-go's "tls: failed to verify
 * certificate: x509: certificate signed by unknown authority" does; Node's own message ("unable to
 * verify the first certificate") names neither. Other errors are returned as they are.
 */
export function tlsHint(e: unknown, server: string): unknown {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== 'string' || !CERT_CODES.test(code)) return e;
  const err = e as Error;
  // Node 24 appends advice for its own command line ("if the root CA is installed locally, try running
  // Node.js with --use-system-ca"): not ours to give, the CA is the kubeconfig's.
  const reason = err.message.split('; if the root CA is installed locally')[0];
  return Object.assign(new Error(`${server}: the server's TLS certificate was not accepted (${reason}; ${code}): check the kubeconfig's certificate-authority and server`, { cause: err }), { code });
}

/** The same error with what was being done in front of its message; its `code` (ECONNREFUSED...) is kept. */
function withContext(what: string, e: unknown): Error {
  const err = e instanceof Error ? e : new Error(String(e));
  return Object.assign(new Error(`${what}: ${err.message}`, { cause: err }), { code: (err as { code?: unknown }).code });
}
