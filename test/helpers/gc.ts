// V8's gc() for tests that check what can be collected, with or without node's --expose-gc (the
// test runner does not pass it): the flag set at run time, then gc taken from a new context.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function gcFunction(): () => void {
  if (typeof globalThis.gc === 'function') return globalThis.gc as () => void;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
