// klog's -v verbosity mapped onto pino levels. Kubernetes' convention: V(0-3) are operator-facing
// information, V(4) is debug, V(5) and up trace.
export type PinoLevel = 'info' | 'debug' | 'trace';

export function levelForVerbosity(v: number): PinoLevel {
  if (v >= 5) return 'trace';
  if (v >= 4) return 'debug';
  return 'info';
}
