// Where log lines go. Upstream writes every line to standard error; with the (alpha) split stream of
// the chosen format, info lines go to standard output and errors to standard error: in text format
// only klog "I" lines count as info (warnings go to stderr: component-base logs/api/v1 text.go,
// klogMsgRouter), in JSON everything below error does (component-base logs/json, zap's levels).
import pino from 'pino';
import { textDestination } from './text-format';

export interface LineSink { write(s: string): unknown }

export interface DestinationOptions {
  text: boolean;
  split: boolean;
  errors: LineSink;
  info: LineSink;
}

const LEVEL = { trace: 10, warn: 40, error: 50 } as const;

function formatted(out: LineSink, text: boolean): { write(s: string): void } {
  return text ? textDestination(out) : { write: (s: string) => { out.write(s); } };
}

export function logDestination(o: DestinationOptions): pino.DestinationStream | pino.MultiStreamRes {
  if (!o.split) return formatted(o.errors, o.text);
  const firstErrorLevel = o.text ? LEVEL.warn : LEVEL.error;
  return pino.multistream([
    { level: LEVEL.trace, stream: formatted(o.info, o.text) },
    { level: firstErrorLevel, stream: formatted(o.errors, o.text) },
  ], { dedupe: true });
}
