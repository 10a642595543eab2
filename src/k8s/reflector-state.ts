// What a Reflector tells health and metrics about itself: is it connected, how often has it failed,
// and since when may its view of the resource be out of date.

/**
 * Has this resource been refused with HTTP 403 for at least `confirmMs` (every try since)? Then it is
 * RBAC's answer, not the moment after an API server's start when it refuses allowed requests.
 */
export function forbiddenFor(s: Pick<ReflectorStatus, 'forbiddenSince'>, confirmMs: number, now = Date.now()): boolean {
  return s.forbiddenSince !== undefined && now - s.forbiddenSince.getTime() >= confirmMs;
}

export interface ReflectorStatus {
  resource: string;
  connected: boolean;
  synced: boolean;
  /** Consecutive failures since the last success. */
  failures: number;
  lastError?: string;
  lastErrorTime?: Date;
  /** HTTP status of the last failure, when it was an HTTP answer (403 = not allowed by RBAC). */
  lastErrorCode?: number;
  /**
   * Since when every try has been refused with HTTP 403 (undefined after any other outcome). One 403
   * proves little: kube-apiserver answers 403 to allowed requests for a moment after it starts,
   * before its RBAC rules are loaded; 403s that last are RBAC's answer.
   */
  forbiddenSince?: Date;
  /** The API server does not serve this resource (HTTP 404 with `stopWhenNotServed`): no longer watched. */
  notServed?: boolean;
  /**
   * Since when the view may be out of date: set from creation until the first list completes, and from
   * the moment a watch connection ends (error, stall, hang, or a normal end before the next watch is
   * open) until a list completes or a watch is open again. Undefined while current, and for a resource
   * that is not served.
   */
  staleSince?: Date;
  resourceVersion: string;
}

export class ReflectorState {
  private readonly s: Omit<ReflectorStatus, 'resourceVersion'>;

  constructor(resource: string, now: Date = new Date()) {
    this.s = { resource, connected: false, synced: false, failures: 0, staleSince: now };
  }

  snapshot(resourceVersion: string): ReflectorStatus {
    return { ...this.s, resourceVersion };
  }

  get isSynced(): boolean {
    return this.s.synced;
  }

  get failures(): number {
    return this.s.failures;
  }

  /** A list completed or a watch is open: the view is current. True if `connected` changed (worth reporting). */
  current(): boolean {
    this.s.staleSince = undefined;
    this.s.forbiddenSince = undefined;
    if (this.s.connected) return false;
    this.s.connected = true;
    this.s.failures = 0;
    return true;
  }

  /** The first list completed. */
  markSynced(): void {
    this.s.synced = true;
  }

  /** The watch connection is gone, for whatever reason: changes may be missed until the next one is open. */
  lost(at: Date = new Date()): void {
    if (!this.s.notServed) this.s.staleSince ??= at;
  }

  failed(message: string, httpCode: number | undefined, at: Date = new Date()): void {
    this.s.failures++;
    this.s.connected = false;
    this.s.lastError = message;
    this.s.lastErrorTime = at;
    this.s.lastErrorCode = httpCode;
    this.s.forbiddenSince = httpCode === 403 ? this.s.forbiddenSince ?? at : undefined;
    this.lost(at);
  }

  /** Not served (404): nothing to be stale about, and nothing will be asked again. */
  notServed(message: string, at: Date = new Date()): void {
    this.s.notServed = true;
    this.s.connected = false;
    this.s.lastError = message;
    this.s.lastErrorTime = at;
    this.s.lastErrorCode = 404;
    this.s.staleSince = undefined;
  }
}
