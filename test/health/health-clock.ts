// A wall clock for health tests that moves only when told (ProxyHealth takes Dates, not ms).
import type { Clock } from '../../src/health/proxy-health';

export class FakeClock implements Clock {
  t = Date.parse('2026-01-01T00:00:00Z');
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
