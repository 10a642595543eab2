// A test API server: speaks enough of the Kubernetes list/watch protocol for client-node's informers,
// over real HTTP, and records every request so tests can prove what was (and was not) asked for.
// Test-only: it lives under test/ and never ships.
import * as http from 'node:http';
import * as https from 'node:https';
import { AddressInfo, Socket } from 'node:net';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector, validateFields } from './selectors';
import { deliver, KObject, Matcher, objectKey, Resource, RESOURCES, Store } from './store';
import { parseRoute, Route } from './routes';
import { Fault, FaultRules, RequestKind, sendStreamHeaders, trickle } from './faults';
import { KubeconfigUser, writeKubeconfig } from './kubeconfig';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  watch: boolean;
  /** Date.now() on arrival. */
  time: number;
  /** The Authorization header, as sent. */
  authorization?: string;
}

export interface TestApiServerOptions {
  /** Events kept for resuming watches; older versions get 410 Gone. */
  historyLimit?: number;
  /**
   * Send a BOOKMARK to watches that asked for them this often (0 = only on bookmarkAll()). As the API
   * server's watch cache, a bookmark is sent only once the version has moved past the one the watch
   * started from.
   */
  bookmarkIntervalMs?: number;
  /** Answer a watch from an expired version with HTTP 410 instead of a 200 stream holding an ERROR event. */
  expiredWatchAsHttp410?: boolean;
  /** Keep watches open past their timeoutSeconds, silent, like a connection that died without a FIN. */
  ignoreWatchTimeouts?: boolean;
  /** Resources answered with 404, like an older API server that lacks them (also settable: `notServed`). */
  notServed?: Resource[];
  /** Serve HTTPS with this key and certificate; with `clientCa`, also require a client certificate it signed. */
  tls?: { key: string; cert: string; clientCa?: string };
}

/** Milliseconds to hold the answer to a list of `path` (to open race windows in tests); 0 = none. */
export type ListDelay = (path: string) => number;


interface OpenWatch {
  res: http.ServerResponse;
  close: () => void;
  /** Sends what a watch fault held back, once no fault silences it any more. */
  release: () => void;
}

interface Snapshot {
  rv: number;
  items: KObject[];
}

function status(code: number, reason: string, message: string): KObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/**
 * What kube-apiserver v1.37.2 answers when API Priority and Fairness rejects a request (seen with a
 * FlowSchema sending our user to a PriorityLevelConfiguration with no seats and `limitResponse: Reject`):
 * not a Status object but plain text, with `Retry-After` in seconds (APF always says 1).
 */
function tooManyRequests(res: http.ServerResponse, retryAfterSeconds: number): void {
  res.writeHead(429, { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': String(retryAfterSeconds), 'X-Content-Type-Options': 'nosniff' });
  res.end('Too many requests, please try again later.\n');
}

/** A page of a snapshot; lastKey is the key of the last object sent so far. */
interface SnapshotToken {
  id: string;
  offset: number;
  lastKey: string;
}
/** What is stored now, after this key: the continuation a 410 offers (the real one has rv -1). */
interface LatestToken {
  start: string;
}
type ContinueToken = SnapshotToken | LatestToken;

const encodeContinue = (t: ContinueToken): string => Buffer.from(JSON.stringify(t)).toString('base64');

/**
 * kube-apiserver v1.37.2's answer to a continue token it can no longer serve consistently (seen after
 * an etcd compaction and a restart of the API server, whose watch cache then no longer has the
 * list's snapshot): 410 Expired, with a token in the Status's metadata to go on from the same key at
 * the latest version, inconsistently.
 */
function continueExpired(lastKey: string): KObject {
  const st = status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.');
  st.metadata = { continue: encodeContinue({ start: lastKey }) };
  return st;
}

/** Objects in key order, as localeCompare orders keys; each key is built once (a 44k list: 150 -> 70 ms). */
const keyOrder = new Intl.Collator();
function byKey(items: KObject[]): KObject[] {
  return items.map((o) => ({ k: objectKey(o), o })).sort((a, b) => keyOrder.compare(a.k, b.k)).map((e) => e.o);
}

export class TestApiServer {
  readonly store: Store;
  readonly requests: RecordedRequest[] = [];
  /** Events created through POST, in arrival order, with the path they were posted to. */
  readonly events: Array<{ path: string; event: KObject }> = [];
  private server?: http.Server;
  private port = 0;
  private readonly watches = new Set<OpenWatch>();
  private readonly snapshots = new Map<string, Snapshot>();
  private snapshotSeq = 0;
  private failure?: { code: number; pathPrefix: string; retryAfterSeconds: number };
  private readonly faults = new FaultRules();
  /** Requests a fault left unanswered (or answered with headers only), until their connection closes. */
  private readonly hung = new Set<http.ServerResponse>();
  /** For bytesSent(): open connections, and what the closed ones wrote. */
  private readonly sockets = new Set<Socket>();
  private closedBytes = 0;
  /** Settable by tests at any time. */
  listDelay: ListDelay = () => 0;
  /** Resources this server pretends not to have (every request for them gets 404); changeable at any time. */
  readonly notServed: Set<Resource>;

  constructor(private readonly opts: TestApiServerOptions = {}) {
    this.store = new Store(opts.historyLimit ?? 1000);
    this.notServed = new Set(opts.notServed ?? []);
  }

  get url(): string {
    if (!this.server) throw new Error('test API server is not running');
    return `${this.opts.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  async start(port = this.port): Promise<void> {
    // Go's net/http (and so the API server) accepts 1 MiB of request line and headers; Node's default is 16 KiB.
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => this.handle(req, res);
    const tls = this.opts.tls;
    const server = tls
      ? https.createServer({ maxHeaderSize: 1 << 20, key: tls.key, cert: tls.cert, ca: tls.clientCa, requestCert: !!tls.clientCa, rejectUnauthorized: !!tls.clientCa }, handler)
      : http.createServer({ maxHeaderSize: 1 << 20 }, handler);
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => {
        this.closedBytes += socket.bytesWritten;
        this.sockets.delete(socket);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const w of [...this.watches]) w.close();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  /** Stops and starts again on the same port, like an API server restart; stored objects survive. */
  async restart(opts: { compact?: boolean } = {}): Promise<void> {
    await this.stop();
    if (opts.compact) this.compact();
    await this.start(this.port);
  }

  create(resource: Resource, obj: KObject): KObject {
    return this.store.create(resource, obj);
  }
  update(resource: Resource, obj: KObject): KObject {
    return this.store.update(resource, obj);
  }
  delete(resource: Resource, obj: KObject): KObject {
    return this.store.delete(resource, obj);
  }

  /** Expires all history and continue tokens: any older resourceVersion now gets 410 Gone. */
  compact(): void {
    this.store.compact();
    this.snapshots.clear();
  }

  /**
   * Makes every GET and event POST (under `pathPrefix`) answer with this HTTP status until cleared
   * (undefined). A 429 is answered as API Priority and Fairness rejects a request (see tooManyRequests).
   */
  failRequests(code: number | undefined, pathPrefix = '/', opts: { retryAfterSeconds?: number } = {}): void {
    this.failure = code === undefined ? undefined : { code, pathPrefix, retryAfterSeconds: opts.retryAfterSeconds ?? 1 };
  }

  /**
   * From now on, lists or watches under `pathPrefix` get `fault` (undefined clears it). A watch fault
   * also silences the open watches it matches (no events, no bookmarks) while it is in force.
   */
  setFault(pathPrefix: string, kind: RequestKind, fault: Fault | undefined): void {
    this.faults.set(pathPrefix, kind, fault);
    for (const w of [...this.watches]) w.release();
  }

  clearFaults(): void {
    this.faults.clear();
    for (const w of [...this.watches]) w.release();
  }

  /** Requests still held open by a `no-headers` fault, or by a `silent` one on a list. */
  get hungRequests(): number {
    return this.hung.size;
  }

  /** Sends a BOOKMARK now on every watch that allowed them (and whose version has moved). */
  bookmarkAll(): void {
    for (const w of this.watches) w.res.emit('bookmark');
  }

  /** Cuts every open watch stream, optionally in the middle of a JSON object. */
  breakWatches(midObject = false): void {
    for (const w of [...this.watches]) {
      if (midObject) w.res.write('{"type":"MODIFIED","object":{"kind":"Serv');
      w.res.socket?.destroy();
      w.close();
    }
  }

  get openWatches(): number {
    return this.watches.size;
  }

  /** Requests for a resource, optionally only watches or only lists. */
  requestsFor(pathPrefix: string, kind?: 'list' | 'watch'): RecordedRequest[] {
    return this.requests.filter((r) => r.path.startsWith(pathPrefix) && (kind === undefined || r.watch === (kind === 'watch')));
  }

  /** Bytes written to clients so far (headers and bodies, TLS records on HTTPS), across restarts. */
  bytesSent(): number {
    let n = this.closedBytes;
    for (const s of this.sockets) n += s.bytesWritten;
    return n;
  }

  /** Writes a kubeconfig pointing at this server (bearer token `test-token` unless `user` says otherwise) and returns its path. */
  kubeconfig(dir?: string, user?: KubeconfigUser): string {
    return writeKubeconfig(this.url, dir, user);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const query = Object.fromEntries(url.searchParams.entries());
    const watch = query.watch === 'true' || query.watch === '1';
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, query, watch, time: Date.now(), authorization: req.headers.authorization });
    const route = parseRoute(url.pathname);
    if (!route || (route.resource !== 'events' && this.notServed.has(route.resource))) return this.send(res, 404, status(404, 'NotFound', `the server could not find the requested resource (${url.pathname})`));
    const f = this.failure;
    if (f && url.pathname.startsWith(f.pathPrefix)) {
      if (f.code === 429) return tooManyRequests(res, f.retryAfterSeconds);
      return this.send(res, f.code, status(f.code, f.code === 403 ? 'Forbidden' : 'InternalError', 'injected failure'));
    }
    if (req.method === 'POST' && route.resource === 'events') return this.acceptEvent(req, res, route, url.pathname);
    if (req.method !== 'GET' || route.resource === 'events') {
      return this.send(res, 405, status(405, 'MethodNotAllowed', `${req.method} is not supported on ${url.pathname}`));
    }
    const resource = route.resource;
    if (route.name !== undefined) return this.getOne(res, resource, route);
    let matcher: Matcher;
    try {
      matcher = this.matcher(route, query);
    } catch (e) {
      return this.send(res, 400, status(400, 'BadRequest', (e as Error).message));
    }
    const fault = this.faults.find(url.pathname, watch ? 'watch' : 'list');
    // Never answered: the socket stays open until the client gives up or the server stops.
    if (fault?.mode === 'no-headers') return this.hang(res);
    // A silenced watch is a real one whose output is held back (see watch()).
    if (watch) return this.watch(req, res, resource, matcher, query, url.pathname);
    if (fault?.mode === 'silent') {
      this.hang(res);
      return sendStreamHeaders(res);
    }
    if (fault?.mode === 'trickle') {
      const { code, body } = this.listAnswer(resource, matcher, query);
      return trickle(res, code, body, fault.bytes, fault.everyMs);
    }
    // The snapshot is taken now; only the answer is late, like a slow network.
    const delay = this.listDelay(url.pathname);
    if (delay <= 0) return this.list(res, resource, matcher, query);
    const answer = this.captureList(res, resource, matcher, query);
    setTimeout(answer, delay);
  }

  private matcher(route: Route, query: Record<string, string>): Matcher {
    const labels = parseLabelSelector(query.labelSelector);
    const fields = parseFieldSelector(query.fieldSelector);
    validateFields(fields, route.resource);
    return (o) =>
      o !== undefined &&
      (route.namespace === undefined || o.metadata?.namespace === route.namespace) &&
      matchesLabels(labels, o.metadata?.labels) &&
      matchesFields(fields, o);
  }

  private getOne(res: http.ServerResponse, resource: Resource, route: Route): void {
    const o = this.store.get(resource, RESOURCES[resource].namespaced ? route.namespace ?? '' : '', route.name!);
    if (!o) return this.send(res, 404, status(404, 'NotFound', `${resource} "${route.name}" not found`));
    this.send(res, 200, o);
  }

  /** Computes the list answer now and returns a function that sends it. */
  private captureList(res: http.ServerResponse, resource: Resource, matcher: Matcher, query: Record<string, string>): () => void {
    const { code, body } = this.listAnswer(resource, matcher, query);
    return () => {
      res.writeHead(code, { 'Content-Type': 'application/json' });
      res.end(body);
    };
  }

  /** The status and body a list would be answered with now. */
  private listAnswer(resource: Resource, matcher: Matcher, query: Record<string, string>): { code: number; body: string } {
    let code = 0;
    let body = '';
    const recorder = { writeHead: (c: number) => (code = c), end: (b: string) => (body = b) };
    this.list(recorder as unknown as http.ServerResponse, resource, matcher, query);
    return { code, body };
  }

  private list(res: http.ServerResponse, resource: Resource, matcher: Matcher, query: Record<string, string>): void {
    const info = RESOURCES[resource];
    let snap: Snapshot;
    let offset = 0;
    let id: string;
    const token = query.continue ? this.decodeContinue(query.continue) : undefined;
    if (query.continue && !token) return this.send(res, 400, status(400, 'BadRequest', 'invalid continue token'));
    if (token && 'start' in token) {
      // The inconsistent continuation a 410 offered: what is stored now, after the last key sent.
      const items = byKey(this.store.storedObjects(resource).filter(matcher)).filter((o) => keyOrder.compare(objectKey(o), token.start) > 0);
      snap = { rv: this.store.rv, items };
      id = String(++this.snapshotSeq);
    } else if (token) {
      const found = this.snapshots.get(token.id);
      if (!found || found.rv < this.store.oldestRv) return this.send(res, 410, continueExpired(token.lastKey));
      snap = found;
      offset = token.offset;
      id = token.id;
    } else {
      snap = { rv: this.store.rv, items: byKey(this.store.storedObjects(resource).filter(matcher)) };
      id = String(++this.snapshotSeq);
    }
    const limit = Number(query.limit ?? 0);
    const end = limit > 0 ? Math.min(offset + limit, snap.items.length) : snap.items.length;
    const metadata: Record<string, unknown> = { resourceVersion: String(snap.rv) };
    if (end < snap.items.length) {
      this.snapshots.set(id, snap);
      metadata.continue = encodeContinue({ id, offset: end, lastKey: objectKey(snap.items[end - 1]) });
      metadata.remainingItemCount = snap.items.length - end;
    }
    this.send(res, 200, { kind: `${info.kind}List`, apiVersion: info.apiVersion, metadata, items: snap.items.slice(offset, end) });
  }

  private decodeContinue(s: string): ContinueToken | undefined {
    try {
      const t = JSON.parse(Buffer.from(s, 'base64').toString('utf8')) as Partial<SnapshotToken & LatestToken>;
      if (typeof t.start === 'string') return { start: t.start };
      return typeof t.id === 'string' && Number.isInteger(t.offset) ? { id: t.id, offset: t.offset!, lastKey: typeof t.lastKey === 'string' ? t.lastKey : '' } : undefined;
    } catch {
      return undefined;
    }
  }

  private watch(req: http.IncomingMessage, res: http.ServerResponse, resource: Resource, matcher: Matcher, query: Record<string, string>, pathname: string): void {
    const info = RESOURCES[resource];
    const rvParam = query.resourceVersion ?? '';
    const fromRv = rvParam === '' || rvParam === '0' ? undefined : Number(rvParam);
    if (fromRv !== undefined && !Number.isInteger(fromRv)) {
      return this.send(res, 400, status(400, 'BadRequest', `invalid resource version: ${rvParam}`));
    }
    const expired = fromRv !== undefined && fromRv < this.store.oldestRv;
    const expiredStatus = status(410, 'Expired', `too old resource version: ${fromRv} (${this.store.oldestRv})`);
    if (expired && this.opts.expiredWatchAsHttp410) return this.send(res, 410, expiredStatus);

    sendStreamHeaders(res);
    if (expired) {
      res.end(JSON.stringify({ type: 'ERROR', object: expiredStatus }) + '\n');
      return;
    }
    const startRv = fromRv ?? this.store.rv;
    // While a watch fault matches, nothing is sent (not even the end at timeoutSeconds), like a server
    // that stalled; once it is cleared, the held lines go out in order, like one that recovered.
    const silenced = (): boolean => this.faults.find(pathname, 'watch') !== undefined;
    const held: string[] = [];
    const timers: NodeJS.Timeout[] = [];
    let endHeld = false;
    let unsubscribe = (): void => undefined;
    const w: OpenWatch = {
      res,
      close: () => {
        if (!this.watches.delete(w)) return;
        unsubscribe();
        timers.forEach((t) => clearTimeout(t));
        res.end();
      },
      release: () => {
        if (silenced()) return;
        for (const line of held.splice(0)) res.write(line);
        if (endHeld) w.close();
      },
    };
    this.watches.add(w);
    const write = (type: string, object: KObject): void => {
      held.push(JSON.stringify({ type, object }) + '\n');
      w.release();
    };
    if (fromRv === undefined) {
      for (const o of this.store.list(resource).filter(matcher)) write('ADDED', o);
    } else {
      for (const e of this.store.eventsSince(fromRv)) deliver(e, resource, matcher, write);
    }
    unsubscribe = this.store.subscribe((e) => deliver(e, resource, matcher, write));
    const bookmark = (): void => {
      // The watch cache sends no bookmark at or below the version the watch started from.
      if (query.allowWatchBookmarks === 'true' && this.store.rv > startRv) {
        write('BOOKMARK', { kind: info.kind, apiVersion: info.apiVersion, metadata: { resourceVersion: String(this.store.rv) } });
      }
    };
    res.on('bookmark', bookmark);
    if (this.opts.bookmarkIntervalMs) timers.push(setInterval(bookmark, this.opts.bookmarkIntervalMs));
    const timeout = Number(query.timeoutSeconds ?? 0);
    const end = (): void => (silenced() ? void (endHeld = true) : w.close());
    if (timeout > 0 && !this.opts.ignoreWatchTimeouts) timers.push(setTimeout(end, timeout * 1000));
    req.on('close', w.close);
    res.on('close', w.close);
  }

  private acceptEvent(req: http.IncomingMessage, res: http.ServerResponse, route: Route, path: string): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as KObject;
        // As the API server: an event's namespace must be the one in the path.
        const ns = (body.metadata as { namespace?: string } | undefined)?.namespace;
        if (ns !== undefined && ns !== route.namespace) {
          return this.send(res, 400, status(400, 'BadRequest', `the namespace of the object (${ns}) does not match the namespace on the request (${route.namespace})`));
        }
        this.events.push({ path, event: body });
        body.metadata = { ...body.metadata, namespace: route.namespace, resourceVersion: String(this.store.rv) };
        this.send(res, 201, body);
      } catch (e) {
        this.send(res, 400, status(400, 'BadRequest', `invalid event body: ${(e as Error).message}`));
      }
    });
  }

  private hang(res: http.ServerResponse): void {
    this.hung.add(res);
    res.on('close', () => this.hung.delete(res));
  }

  private send(res: http.ServerResponse, code: number, body: KObject): void {
    res.writeHead(code, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}
