// The process logger: pino, JSON lines by default, text for people (--logging-format=text), its level
// from -v (see levels.ts).
import pino from 'pino';
import { levelForVerbosity } from './levels';
import { textDestination } from './text-format';

export type Logger = pino.Logger;
export { levelForVerbosity } from './levels';
export { formatTextLine } from './text-format';
export { installLastResort, describeThrown, LAST_RESORT_EXIT_CODE } from './last-resort';
export type { FatalLog, FatalKind } from './last-resort';

export interface LogOptions {
  format: string;
  verbosity: number;
  /** Where lines go; standard error by default, as klog writes. */
  destination?: { write(s: string): unknown };
}

export function createLogger(opts: LogOptions): Logger {
  const out = opts.destination ?? process.stderr;
  const dest = opts.format === 'text' ? textDestination(out) : { write: (s: string) => { out.write(s); } };
  return pino({ level: levelForVerbosity(opts.verbosity), base: undefined, timestamp: pino.stdTimeFunctions.epochTime }, dest);
}
