// The process logger: pino, its level from -v (see levels.ts). Two formats, as upstream's
// --logging-format: "text" (the default) renders klog's text lines (text-format.ts); "json" writes one
// JSON object a line with upstream's field names where they exist (json-fields.ts). Everything goes to
// standard error unless the format's split stream is on (streams.ts).
import pino from 'pino';
import { levelForVerbosity } from './levels';
import { jsonFormatters, jsonTimestamp } from './json-fields';
import { logDestination, type LineSink } from './streams';

export type Logger = pino.Logger;
export { levelForVerbosity } from './levels';
export { formatTextLine, klogHeader, TEXT_SOURCE } from './text-format';
export { installLastResort, describeThrown, LAST_RESORT_EXIT_CODE } from './last-resort';
export type { FatalLog, FatalKind } from './last-resort';
export type { LineSink } from './streams';

export interface LogOptions {
  /** 'text' or 'json' (validated by src/config). */
  format: string;
  verbosity: number;
  /** Upstream's --log-text-split-stream / --log-json-split-stream for the chosen format: info to
   *  `infoDestination`, errors to `destination`. */
  splitStream?: boolean;
  /** Where lines go (with splitStream, the error lines); standard error by default, as klog writes. */
  destination?: LineSink;
  /** With splitStream, where info lines go; standard output by default. */
  infoDestination?: LineSink;
}

export function createLogger(opts: LogOptions): Logger {
  const dest = logDestination({
    text: opts.format === 'text',
    split: opts.splitStream === true,
    errors: opts.destination ?? process.stderr,
    info: opts.infoDestination ?? process.stdout,
  });
  return pino({ level: levelForVerbosity(opts.verbosity), base: undefined, timestamp: jsonTimestamp, formatters: jsonFormatters }, dest);
}
