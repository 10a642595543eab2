// Time as the proxy reads it, injected so tests run on fake time: a monotonic scale for intervals and
// timers, and the wall clock for what is reported to people (health timestamps). A piece that needs
// only one of them asks for Pick<Clock, ...>.
export type TimerHandle = unknown;

export interface Clock {
  /** Milliseconds on a monotonic scale: for intervals and deadlines, never shown. */
  now(): number;
  /** The wall clock: for timestamps that are reported. */
  wall(): Date;
  setTimer(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  wall: () => new Date(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
