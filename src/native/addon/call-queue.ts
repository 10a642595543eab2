// The addon carries one request/response exchange per socket at a time (a second call is refused),
// so each handle's calls wait their turn here. close() takes effect once the queued calls are done;
// later calls are refused with "<owner>: the socket is closed".
export class CallQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  private pending = 0;

  constructor(private readonly owner: string) {}

  /** Calls queued or running. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /**
   * Runs `fn` after the calls before it. `startNowIfIdle`: an idle queue calls it at once, in this
   * turn (Nft hands a view of its buffer to the addon then), instead of in a later microtask.
   */
  run<T>(fn: () => Promise<T>, opts: { startNowIfIdle?: boolean } = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`${this.owner}: the socket is closed`));
    const now = opts.startNowIfIdle === true && this.pending === 0;
    this.pending++;
    const done = (): void => { this.pending--; };
    const run = now ? fn() : this.tail.then(fn, fn);
    run.then(done, done);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Refuses new calls and runs `onIdle` once the queued ones have finished (once). */
  close(onIdle: () => void): void {
    if (this.closed) return;
    this.closed = true;
    void this.tail.then(onIdle);
  }
}
