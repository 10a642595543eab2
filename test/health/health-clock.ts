// A wall clock for health tests that moves only when told (ProxyHealth reads only the wall clock).
import type { WallClock } from '../../src/health/proxy-health';

export class FakeClock implements WallClock {
  t = Date.parse('2026-01-01T00:00:00Z');
  wall(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
