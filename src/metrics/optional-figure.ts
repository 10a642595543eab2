// A label-less metric whose figure may be unknown at a scrape (a read failed, the kernel sent no such
// counter, the cgroup has no limit): prom-client would print it as 0, which reads as an empty table
// or a limit of 0 bytes, so a scrape without the figure leaves the metric out.
import { Gauge, type Counter, type Registry } from 'prom-client';

export interface OptionalFigure {
  /** Reads the figure, and remembers whether this scrape has one. */
  read: () => Promise<number | undefined>;
  /** Makes `metric` show nothing at a scrape whose last read had no figure. */
  hideWhenUnknown: (metric: Gauge | Counter) => void;
}

export function optionalFigure(read: () => Promise<number | undefined>): OptionalFigure {
  let known = false;
  return {
    read: async () => {
      const v = await read();
      known = v !== undefined;
      return v;
    },
    hideWhenUnknown(metric) {
      const get = metric.get.bind(metric);
      metric.get = async () => {
        const m = await get();
        return known ? m : { ...m, values: [] };
      };
    },
  };
}

/** A gauge set from `read` at each scrape, left out of the scrapes where `read` has no figure. */
export function optionalGauge(name: string, help: string, registers: Registry[], read: () => Promise<number | undefined>): Gauge {
  const f = optionalFigure(read);
  const gauge = new Gauge({ name, help, registers, async collect() { const v = await f.read(); if (v !== undefined) this.set(v); } });
  f.hideWhenUnknown(gauge);
  return gauge;
}
