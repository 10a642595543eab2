// One list+watch loop for one resource, over our own requests (api-request.ts), which cannot hang.
// Why not client-node's ListWatch: it stops for good on the first error, cannot page its list, cannot
// change its field selector without a relist, and cannot merge one namespace in; kube-proxy needs all four.
import type { KubernetesObject } from '@kubernetes/client-node';
import { BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from './backoff';
import { cacheEntry } from './kept-fields';
import { silentLog, type Log } from '../base/log';
import { forbiddenFor, ReflectorState, ReflectorStatus } from './reflector-state';
import { rawKey, type ListPage, RejectedItem, ResourceClient } from './resources';
import { WatchStream } from './watch-stream';

export type { ReflectorStatus } from './reflector-state';

export interface ReflectorHandler<T> {
  add(obj: T): void;
  update(obj: T): void;
  /**
   * A watch's DELETED event gives the object it carried; a delete the Reflector infers (a relist
   * without it, drop()) gives what the cache kept: metadata only (see cacheEntry).
   */
  delete(obj: T): void;
  /** Called once, after the first complete list. */
  synced?(): void;
}

export interface ReflectorOptions<T extends KubernetesObject> {
  client: ResourceClient<T>;
  handler: ReflectorHandler<T>;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size for lists (client-go uses 500). */
  pageSize?: number;
  backoff?: BackoffOptions;
  /** Server-side watch timeout; client-go picks 5-10 minutes at random. */
  watchTimeoutSeconds?: () => number;
  /** Events for objects failing this are ignored (in flight before a selector change took effect). */
  accept?: (obj: T) => boolean;
  /**
   * An HTTP 404 on a list or watch means the API server does not serve the resource (an older
   * cluster): stop for good, set `notServed` in the status and report it, instead of retrying.
   */
  stopWhenNotServed?: boolean;
  /** Failures with these HTTP codes are logged at debug, not warn (the owner explains them once). */
  quietErrorCodes?: number[];
  /** After an HTTP 403, retry after this many ms (plus the backoff's jitter) instead of the backoff: a
   *  permission is granted rarely, and retrying it every 30 s only adds refused requests. */
  forbiddenRetryMs?: number;
  /** ...but only once every try has been refused for this long (default 0): until then a 403 may be
   *  an API server that has just started (see ReflectorStatus.forbiddenSince), and gets the backoff. */
  forbiddenConfirmMs?: number;
  log?: Log;
  onStatus?: (s: ReflectorStatus) => void;
}

/** The options that do not depend on the resource, which one owner's Reflectors share. */
export type SharedReflectorOptions = Pick<ReflectorOptions<KubernetesObject>, 'backoff' | 'pageSize' | 'watchTimeoutSeconds' | 'log' | 'onStatus'>;

interface WatchOutcome {
  gone: boolean;
  events: number;
  /** Ended by us (selector change or stop), not by the server. */
  interrupted: boolean;
}

export class GoneError extends Error {}

/**
 * A page after the first answered 410 (kube-apiserver: "The provided continue parameter is too old to
 * display a consistent list result..."): etcd was compacted past the list's revision and the watch
 * cache no longer holds its snapshot. The list starts over from its first page.
 */
export class ContinueExpiredError extends GoneError {
  constructor(readonly pagesListed: number, readonly serverMessage: string) {
    super(`continue token expired after ${pagesListed} page${pagesListed === 1 ? '' : 's'}: ${serverMessage}`);
  }
}

const isGone = (e: unknown): boolean => {
  const err = e as { code?: unknown; statusCode?: unknown };
  return e instanceof GoneError || err?.code === 410 || err?.statusCode === 410;
};

const describe = (e: unknown): string => {
  const err = e as { code?: number; statusCode?: number; message?: string; body?: unknown };
  const code = err?.code ?? err?.statusCode;
  const msg = err?.message ?? String(e);
  // Only a status is an HTTP code; a string code (ECONNREFUSED, a TLS one) is in the message already.
  return typeof code === 'number' && !msg.includes(String(code)) ? `HTTP ${code}: ${msg}` : msg;
};

/** The HTTP status of a failed request (ApiError has both `code` and `statusCode`; network errors have a string `code`). */
const httpCodeOf = (e: unknown): number | undefined => {
  const { code, statusCode } = (e ?? {}) as { code?: unknown; statusCode?: unknown };
  return [code, statusCode].find((c): c is number => typeof c === 'number');
};

/** The Retry-After (seconds) of a failed request's answer, when it had one (ApiError). */
const retryAfterOf = (e: unknown): number | undefined => {
  const s = (e as { retryAfterSeconds?: unknown })?.retryAfterSeconds;
  return typeof s === 'number' && Number.isFinite(s) && s > 0 ? s : undefined;
};

/** A Retry-After is honoured up to this: a proxy that asks for an hour must not freeze the view that long. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

const keyOf = (o: KubernetesObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** Parses an etcd-style numeric resourceVersion; others are opaque and never compared. */
const rvNumber = (rv: string | undefined): bigint | undefined => (rv && /^\d+$/.test(rv) ? BigInt(rv) : undefined);

export class Reflector<T extends KubernetesObject> {
  /** key -> what is kept of the object (cacheEntry). */
  private readonly cache = new Map<string, T>();
  private rv = '';
  private stopped = true;
  private running = false;
  private fieldSelector?: string;
  private currentWatch?: WatchStream;
  /** Aborts the lists in flight when the Reflector stops. */
  private lists = new AbortController();
  private wake?: () => void;
  private readonly state: ReflectorState;
  /** Namespaces being brought back: their watch events wait here until the namespace's list is in. */
  private readonly merging = new Map<string, Array<{ type: string; obj: T }>>();
  private readonly log: Log;

  constructor(private readonly o: ReflectorOptions<T>) {
    this.fieldSelector = o.fieldSelector;
    this.log = o.log ?? silentLog;
    this.state = new ReflectorState(o.client.name);
  }

  get status(): ReflectorStatus {
    return this.state.snapshot(this.rv);
  }

  start(): void {
    this.stopped = false;
    if (this.lists.signal.aborted) this.lists = new AbortController();
    if (this.running) return;
    this.running = true;
    void this.loop().finally(() => (this.running = false));
  }

  stop(): void {
    this.stopped = true;
    this.interruptWatch();
    this.lists.abort();
    this.wake?.();
  }

  /** Changes the field selector and re-watches from the current version: no relist. */
  setFieldSelector(sel: string | undefined): void {
    if (sel === this.fieldSelector) return;
    this.fieldSelector = sel;
    this.interruptWatch();
  }

  /** Drops the watch and lists everything again (deletes for what vanished, adds for what appeared). */
  relistNow(): void {
    this.rv = '';
    this.interruptWatch();
  }

  /** Forgets cached objects matching `pred` (it sees their cacheEntry), reporting each as deleted. */
  drop(pred: (obj: T) => boolean): number {
    let n = 0;
    for (const [k, obj] of this.cache) {
      if (!pred(obj)) continue;
      this.cache.delete(k);
      this.emit('delete', obj);
      n++;
    }
    return n;
  }

  /**
   * Starts bringing a namespace back: from now on its watch events are held until mergeNamespace
   * has listed it. Call before widening the field selector, so no event falls between watch and list.
   */
  beginMerge(namespace: string): void {
    this.merging.set(namespace, []);
  }

  /** Gives up a merge (the namespace was disabled again); held events are dropped. */
  abortMerge(namespace: string): void {
    this.merging.delete(namespace);
  }

  /**
   * Lists one namespace (paged), merges it into the cache (adds and updates), then applies the held
   * events newer than the list. A no-op if the merge was aborted or a full relist overtook it.
   * On failure the merge stays open, so it can be retried.
   */
  async mergeNamespace(namespace: string): Promise<void> {
    const held = this.merging.get(namespace);
    if (!held) return;
    // Not this.fieldSelector: it may still exclude the namespace being brought back.
    const { items, resourceVersion, rejected } = await this.listPaged(namespace, '');
    if (this.merging.get(namespace) !== held) return;
    this.reportRejected(rejected);
    this.merging.delete(namespace);
    for (const obj of items) if (this.valid(obj)) this.upsert(obj);
    // Held events the list already covers are skipped when versions are comparable (etcd's are
    // numbers); otherwise replaying them in order still ends in the current state.
    const listed = rvNumber(resourceVersion);
    for (const e of held) {
      const at = rvNumber(e.obj.metadata?.resourceVersion);
      if (listed !== undefined && at !== undefined && at <= listed) continue;
      this.applyObject(e.type, e.obj);
    }
  }

  private async loop(): Promise<void> {
    let goneStreak = 0;
    while (!this.stopped) {
      try {
        if (this.rv === '') await this.relist();
        const started = Date.now();
        const out = await this.watchOnce();
        if (out.gone) throw new GoneError('watch resourceVersion expired (410 Gone)');
        goneStreak = 0;
        // A watch that ends at once with nothing in it is a failure in disguise: don't spin.
        if (!out.interrupted && out.events === 0 && Date.now() - started < 1000 && !this.stopped) await this.sleep(this.o.backoff?.initialMs ?? DEFAULT_BACKOFF.initialMs);
      } catch (err) {
        if (this.stopped) break;
        if (this.o.stopWhenNotServed && httpCodeOf(err) === 404) {
          this.notServed(err);
          break;
        }
        if (isGone(err)) {
          if (err instanceof ContinueExpiredError) {
            this.log.info({ resource: this.o.client.name, pagesListed: err.pagesListed, err: err.serverMessage },
              'list continue token expired (410); listing again from the first page');
          } else {
            this.log.info({ resource: this.o.client.name, resourceVersion: this.rv }, 'resourceVersion expired; relisting');
          }
          this.rv = '';
          if (++goneStreak > 1) await this.sleep(backoffDelay(this.o.backoff ?? DEFAULT_BACKOFF, goneStreak - 1));
          continue;
        }
        // A 410 after this one is not "in a row": this failure waits its own backoff, and counting it
        // on made each API server restart (watch reset, refused, then expired) relist later than the last.
        goneStreak = 0;
        await this.sleep(this.failed(err));
      }
    }
  }

  /**
   * The backoff, but never sooner than the server's Retry-After (capped): kube-apiserver sends it
   * with the 429s of API Priority and Fairness (1 s) and of a watch cache not yet ready after a
   * restart. Asking again sooner only earns another 429, as client-go knows (it waits it too).
   */
  private retryDelay(err: unknown): number {
    const backoff = this.o.backoff ?? DEFAULT_BACKOFF;
    const slow = this.o.forbiddenRetryMs;
    if (slow !== undefined && httpCodeOf(err) === 403 && forbiddenFor(this.status, this.o.forbiddenConfirmMs ?? 0)) return slow * (1 + backoff.jitter * Math.random());
    const asked = Math.min(MAX_RETRY_AFTER_MS, (retryAfterOf(err) ?? 0) * 1000);
    return Math.max(asked, backoffDelay(backoff, this.state.failures));
  }

  /** Records and logs a failure; returns how long to wait before the next try (said in the log, with the server's Retry-After). */
  private failed(err: unknown): number {
    const http = httpCodeOf(err);
    this.state.failed(describe(err), http);
    const delay = this.retryDelay(err);
    const retryAfterSeconds = retryAfterOf(err);
    const quiet = http !== undefined && (this.o.quietErrorCodes ?? []).includes(http);
    (quiet ? this.log.debug : this.log.warn).call(this.log,
      { resource: this.o.client.name, failures: this.state.failures, err: describe(err), retryInMs: Math.round(delay), ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) },
      'list/watch failed; retrying with backoff');
    this.o.onStatus?.(this.status);
    return delay;
  }

  /** HTTP 404 with stopWhenNotServed: the loop ends; what was cached stays (nothing is deleted). */
  private notServed(err: unknown): void {
    this.stopped = true;
    this.state.notServed(describe(err));
    this.o.onStatus?.(this.status);
  }

  /** A list completed or a watch opened. */
  private current(): void {
    if (this.state.current()) this.o.onStatus?.(this.status);
  }

  /** Lists every page; each page goes to `onPage` as it arrives, or is gathered into `items`. */
  /**
   * Pages are requested one ahead: the next page's request goes out as soon as this one's continue
   * token is known, before this page's objects are handled, so the API server prepares it while we
   * build the model (at 44k Services a list is ~180 pages; start-up no longer alternates between the
   * two sides' work).
   */
  private async listPaged(namespace?: string, fieldSelector = this.fieldSelector, onPage?: (items: T[]) => void): Promise<{ items: T[]; resourceVersion: string; rejected: RejectedItem[] }> {
    const items: T[] = [];
    const rejected: RejectedItem[] = [];
    let resourceVersion = '';
    let next: Promise<ListPage<T>> | undefined = this.listPage(namespace, fieldSelector, undefined);
    let pages = 0;
    while (next) {
      let p: ListPage<T>;
      try {
        p = await next;
      } catch (err) {
        // A 410 on a page after the first is the continue token's, not a resourceVersion's: say so.
        if (pages > 0 && isGone(err)) throw new ContinueExpiredError(pages, describe(err));
        throw err;
      }
      pages++;
      next = p.continueToken ? this.listPage(namespace, fieldSelector, p.continueToken) : undefined;
      // Seen when awaited in the next turn; should handling this page throw, it is not unhandled.
      next?.catch(() => undefined);
      if (onPage) onPage(p.items);
      else items.push(...p.items);
      rejected.push(...p.rejected);
      resourceVersion = p.resourceVersion;
    }
    return { items, resourceVersion, rejected };
  }

  private listPage(namespace: string | undefined, fieldSelector: string | undefined, continueToken: string | undefined): Promise<ListPage<T>> {
    return this.o.client.list({
      namespace,
      labelSelector: this.o.labelSelector,
      fieldSelector: fieldSelector || undefined,
      limit: this.o.pageSize ?? 500,
      continueToken,
    }, this.lists.signal);
  }

  /**
   * A full list, page by page: each page's objects reach the handler as the page arrives (so a
   * 44k-Service list never exists as objects all at once), then what the list did not show is deleted.
   */
  private async relist(): Promise<void> {
    const seen = new Set<string>();
    const { resourceVersion, rejected } = await this.listPaged(undefined, this.fieldSelector, (page) => {
      for (let i = 0; i < page.length; i++) {
        const o = page[i];
        // Handled objects go young (the model keeps its own parsed form), as decodeList's raw ones do.
        page[i] = undefined as unknown as T;
        if (!this.valid(o)) continue;
        const k = keyOf(o);
        seen.add(k);
        this.upsert(o, k);
      }
    });
    this.reportRejected(rejected);
    // An object that can no longer be decoded keeps the version we had: it did not go away.
    for (const r of rejected) seen.add(r.key);
    for (const [k, old] of this.cache) {
      if (!seen.has(k)) {
        this.cache.delete(k);
        this.emit('delete', old);
      }
    }
    this.rv = resourceVersion;
    // A full list covers every namespace being merged: stop holding their events.
    this.merging.clear();
    this.current();
    if (!this.state.isSynced) {
      this.state.markSynced();
      this.o.handler.synced?.();
      this.o.onStatus?.(this.status);
    }
  }

  private valid(o: T): boolean {
    if (o?.metadata?.name) return true;
    this.log.warn({ resource: this.o.client.name, object: JSON.stringify(o)?.slice(0, 200) }, 'object without metadata.name; skipped');
    return false;
  }

  private upsert(obj: T, k = keyOf(obj)): void {
    if (this.o.accept && !this.o.accept(obj)) return;
    const old = this.cache.get(k);
    if (old && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) return;
    this.cache.set(k, cacheEntry(obj));
    this.emit(old ? 'update' : 'add', obj);
  }

  private emit(kind: 'add' | 'update' | 'delete', obj: T): void {
    try {
      if (kind === 'add') this.o.handler.add(obj);
      else if (kind === 'update') this.o.handler.update(obj);
      else this.o.handler.delete(obj);
    } catch (err) {
      this.log.error({ resource: this.o.client.name, object: keyOf(obj), err: describe(err) }, 'event handler failed; event skipped');
    }
  }

  /** Each object the API server sent that cannot be decoded, named in one warning. */
  private reportRejected(rejected: readonly RejectedItem[]): void {
    for (const r of rejected) {
      const kept = this.cache.has(r.key);
      this.log.warn({ resource: this.o.client.name, object: r.key, err: r.error },
        kept ? 'object cannot be decoded; keeping its previous version' : 'object cannot be decoded; skipped');
    }
  }

  private apply(type: string, raw: unknown): void {
    let obj: T;
    try {
      obj = this.o.client.fromJSON(raw);
    } catch (e) {
      // Skipped like a list item that cannot be decoded; for a DELETE there is nothing to keep.
      this.reportRejected([{ key: rawKey(raw), error: e instanceof Error ? e.message : String(e) }]);
      const rv = (raw as { metadata?: { resourceVersion?: unknown } })?.metadata?.resourceVersion;
      if (typeof rv === 'string' && rv) this.rv = rv;
      if (type === 'DELETED') this.deleteKey(rawKey(raw));
      return;
    }
    if (!this.valid(obj)) return;
    const held = this.merging.get(obj.metadata?.namespace ?? '');
    if (held) held.push({ type, obj });
    else this.applyObject(type, obj);
    this.rv = obj.metadata?.resourceVersion ?? this.rv;
  }

  private applyObject(type: string, obj: T): void {
    if (type === 'DELETED') this.deleteKey(keyOf(obj), obj);
    else this.upsert(obj);
  }

  private deleteKey(key: string, obj?: T): void {
    const had = this.cache.get(key);
    if (had && this.cache.delete(key)) this.emit('delete', obj ?? had);
  }

  private async watchOnce(): Promise<WatchOutcome> {
    const out: WatchOutcome = { gone: false, events: 0, interrupted: false };
    // stop() may come from the list's own handlers (a one-shot reader done once it has listed): no watch then.
    if (this.stopped) return { ...out, interrupted: true };
    const timeoutSeconds = Math.max(1, Math.round(this.o.watchTimeoutSeconds?.() ?? 300 * (1 + Math.random())));
    let errorStatus: { message?: string; code?: number } | undefined;
    const stream = this.o.client.watch({
      params: { resourceVersion: this.rv, allowWatchBookmarks: true, labelSelector: this.o.labelSelector, fieldSelector: this.fieldSelector || undefined },
      timeoutSeconds,
      onOpen: () => this.current(),
      onEvent: (type, obj) => {
        out.events++;
        if (type === 'ERROR') {
          const st = obj as { code?: number; message?: string };
          if (st?.code === 410) out.gone = true;
          else errorStatus = st;
        } else if (type === 'BOOKMARK') {
          this.rv = (obj as KubernetesObject)?.metadata?.resourceVersion || this.rv;
        } else if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') {
          this.apply(type, obj);
        }
      },
    });
    this.currentWatch = stream;
    try {
      const end = await stream.done;
      if (end === 'aborted') return { ...out, interrupted: true };
    } finally {
      if (this.currentWatch === stream) this.currentWatch = undefined;
      // Whatever ended it, changes may be missed until the next watch is open.
      this.state.lost();
    }
    if (errorStatus) throw Object.assign(new Error(errorStatus.message ?? 'watch ERROR event'), { code: errorStatus.code });
    return out;
  }

  private interruptWatch(): void {
    this.currentWatch?.abort();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
  }
}
