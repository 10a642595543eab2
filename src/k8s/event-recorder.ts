// Kubernetes Events as upstream's kube-proxy records them: client-go's tools/events recorder
// (events.k8s.io/v1, reportingController "kube-proxy", reportingInstance "kube-proxy-<hostname>"),
// name "<regarding>.<nanoseconds in hex>", namespace the regarding object's or "default".
// Recording never blocks and never fails the caller: events wait in a bounded queue and are sent one
// at a time; when the queue is full, the API server refuses one (4xx) or it cannot be sent after
// retries, it is dropped, counted, and logged once per cause (then at debug). As upstream's
// broadcaster, an event like one already sent in the last 6 minutes (same regarding object, reason,
// action and controller) is not sent again; upstream then PATCHes a `series` count, we only count it.
import type { Clock } from '../base/clock';
import type { Log } from '../base/log';

export const REPORTING_CONTROLLER = 'kube-proxy';
/** Upstream's maxEventNoteLen; longer notes are cut to 1021 bytes and "...". */
export const MAX_NOTE_BYTES = 1024;

export type EventType = 'Normal' | 'Warning';

/** A core/v1 ObjectReference, as upstream passes to Eventf. */
export interface ObjectRef {
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
}

export interface KubeEvent {
  apiVersion: 'events.k8s.io/v1';
  kind: 'Event';
  metadata: { name: string; namespace: string };
  eventTime: string;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  regarding: ObjectRef;
  note: string;
  type: EventType;
}

export interface EventRecorderOptions {
  /** Sends one event (events-client.ts's postEvent with the kubeconfig's credentials). */
  post: (namespace: string, event: KubeEvent) => Promise<void>;
  /** os.hostname(), as upstream's NewRecorder reads it. */
  hostname: string;
  log?: Pick<Log, 'warn' | 'debug'>;
  clock?: Pick<Clock, 'now' | 'wall' | 'setTimer' | 'clearTimer'>;
  /** Events waiting to be sent; upstream's broadcaster queues 1000. */
  maxQueued?: number;
  /** Attempts per event when the failure may pass (network, 429, 5xx): upstream's 12, 10 s apart. */
  maxAttempts?: number;
  retryDelayMs?: number;
  /** An event like one sent within this window is not sent again (upstream's 6 minutes). */
  isomorphicWindowMs?: number;
}

export interface EventStats {
  sent: number;
  /** Not sent: like one sent within the window (upstream would count it in a series). */
  aggregated: number;
  dropped: { queueFull: number; refused: number; failed: number };
  queued: number;
}

type DropCause = keyof EventStats['dropped'];

const realClock = {
  now: () => performance.now(),
  wall: () => new Date(),
  setTimer: (fn: () => void, ms: number) => setTimeout(fn, ms).unref(),
  clearTimer: (h: unknown) => clearTimeout(h as NodeJS.Timeout),
};

/** Go's metav1.MicroTime in JSON: RFC 3339 in UTC with six fractional digits. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Cuts a note to MAX_NOTE_BYTES as upstream does (on a character boundary here). */
export function truncateNote(note: string): string {
  if (Buffer.byteLength(note) <= MAX_NOTE_BYTES) return note;
  let cut = note;
  while (Buffer.byteLength(cut) > MAX_NOTE_BYTES - 3) cut = cut.slice(0, -1);
  return `${cut}...`;
}

/** API errors that will not pass by trying again (upstream drops them at once). */
function refused(err: unknown): boolean {
  const code = (err as { statusCode?: unknown }).statusCode;
  return typeof code === 'number' && code >= 400 && code < 500 && code !== 429;
}

export class EventRecorder {
  private readonly queue: KubeEvent[] = [];
  private readonly sentAt = new Map<string, number>();
  private readonly loggedCauses = new Set<DropCause>();
  private readonly clock: NonNullable<EventRecorderOptions['clock']>;
  private readonly counts: EventStats = { sent: 0, aggregated: 0, dropped: { queueFull: 0, refused: 0, failed: 0 }, queued: 0 };
  private sending = false;
  private stopped = false;
  private lastNanos = 0n;
  private idleWaiters: Array<() => void> = [];
  private retryTimer: unknown;
  /** Ends the wait between attempts early (stop()). */
  private wakeRetry?: () => void;

  constructor(private readonly o: EventRecorderOptions) {
    this.clock = o.clock ?? realClock;
  }

  /** Upstream's recorder.Eventf(regarding, nil, type, reason, action, note); returns at once. */
  eventf(regarding: ObjectRef, type: EventType, reason: string, action: string, note: string): void {
    if (this.stopped) return;
    const key = JSON.stringify([regarding.kind, regarding.namespace ?? '', regarding.name, regarding.uid ?? '', reason, action]);
    const now = this.clock.now();
    const last = this.sentAt.get(key);
    if (last !== undefined && now - last < (this.o.isomorphicWindowMs ?? 6 * 60_000)) {
      this.counts.aggregated++;
      return;
    }
    if (this.queue.length >= (this.o.maxQueued ?? 1000)) return this.drop('queueFull', reason, 'too many queued events');
    this.sentAt.set(key, now);
    this.pruneSent(now);
    this.queue.push(this.build(regarding, type, reason, action, note));
    void this.pump();
  }

  stats(): EventStats {
    return { ...this.counts, dropped: { ...this.counts.dropped }, queued: this.queue.length + (this.sending ? 1 : 0) };
  }

  /** Resolves when nothing is queued or being sent, or after `timeoutMs` (before exiting). */
  flush(timeoutMs: number): Promise<void> {
    if (!this.sending && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Drops what is queued and records nothing more. */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    this.clock.clearTimer(this.retryTimer);
    this.wakeRetry?.();
    this.wakeIdle();
  }

  private build(regarding: ObjectRef, type: EventType, reason: string, action: string, note: string): KubeEvent {
    const wall = this.clock.wall();
    // Unique names even for two events in one millisecond: the nanoseconds never repeat.
    let nanos = BigInt(wall.getTime()) * 1_000_000n;
    if (nanos <= this.lastNanos) nanos = this.lastNanos + 1n;
    this.lastNanos = nanos;
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `${regarding.name}.${nanos.toString(16)}`, namespace: regarding.namespace || 'default' },
      eventTime: microTime(wall),
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: `${REPORTING_CONTROLLER}-${this.o.hostname}`,
      action,
      reason,
      regarding: { ...regarding },
      note: truncateNote(note),
      type,
    };
  }

  private async pump(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      for (let e = this.queue.shift(); e && !this.stopped; e = this.queue.shift()) await this.sendOne(e);
    } finally {
      this.sending = false;
      this.wakeIdle();
    }
  }

  private async sendOne(e: KubeEvent): Promise<void> {
    const attempts = this.o.maxAttempts ?? 12;
    for (let i = 1; ; i++) {
      try {
        await this.o.post(e.metadata.namespace, e);
        this.counts.sent++;
        return;
      } catch (err) {
        if (refused(err)) return this.drop('refused', e.reason, String(err));
        if (i >= attempts || this.stopped) return this.drop('failed', e.reason, String(err));
        await new Promise<void>((r) => {
          this.wakeRetry = r;
          this.retryTimer = this.clock.setTimer(r, this.o.retryDelayMs ?? 10_000);
        });
        this.wakeRetry = undefined;
      }
    }
  }

  private drop(cause: DropCause, reason: string, err: string): void {
    this.counts.dropped[cause]++;
    const first = !this.loggedCauses.has(cause);
    this.loggedCauses.add(cause);
    const line = { cause, reason, err, dropped: this.counts.dropped[cause] };
    if (first) this.o.log?.warn(line, 'Dropped a Kubernetes Event (further drops of this kind are logged at debug level)');
    else this.o.log?.debug(line, 'Dropped a Kubernetes Event');
  }

  private pruneSent(now: number): void {
    if (this.sentAt.size < 1000) return;
    const window = this.o.isomorphicWindowMs ?? 6 * 60_000;
    for (const [k, t] of this.sentAt) if (now - t >= window) this.sentAt.delete(k);
  }

  private wakeIdle(): void {
    if (this.sending || (this.queue.length > 0 && !this.stopped)) return;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }
}
