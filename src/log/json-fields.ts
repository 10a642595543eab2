// Upstream's JSON log format (component-base/logs/json, zap) names its fields "ts" (epoch milliseconds,
// a float), "msg", "v" (the klog verbosity of an info line; error lines have none) and "caller"
// (file:line). We write "ts" and "msg" the same way and "v" as the verbosity our level stands for
// (info and warn 0, debug 4, trace 5); there is no caller. pino's numeric "level" stays, since upstream
// has no field that tells a warning from an info line (see docs/configuration.md#logging).
const VERBOSITY_OF_LEVEL: Record<number, number> = { 10: 5, 20: 4, 30: 0, 40: 0 };

/** pino `timestamp` option: `"ts": <epoch ms>` in place of pino's "time". */
export const jsonTimestamp = (): string => `,"ts":${Date.now()}`;

export const jsonFormatters = {
  level(_label: string, level: number): Record<string, number> {
    const v = VERBOSITY_OF_LEVEL[level];
    return v === undefined ? { level } : { level, v };
  },
};
