// Time as the runner sees it: injected so tests can run on fake time.
export type TimerHandle = unknown;

export interface Clock {
  /** Milliseconds on a monotonic-enough scale. */
  now(): number;
  setTimer(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
