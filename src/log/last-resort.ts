// The process's last resort: an exception nothing caught, or a rejected promise nobody awaited, is
// logged with its stack and ends the process with a non-zero code, so that the kubelet restarts us.
// Both are fatal because the code they unwound through may have left the model or the sync loop half
// updated, and a restart is cheap and safe: start-up does no cleanup, so the kernel keeps serving the
// rules last programmed until the new process has listed the cluster and synced. This is Node's own
// default and Go's (a panic outside a recovered handler ends kube-proxy). What must NOT be fatal, a bug
// in one HTTP request handler, never gets here: src/http turns it into a 500 and a log line.
import type { Log } from '../base/log';

export const LAST_RESORT_EXIT_CODE = 1;

export type FatalLog = Pick<Log, 'fatal'>;

export type FatalKind = 'uncaughtException' | 'unhandledRejection';

/** What is known of a thrown value, for the log line (anything can be thrown). */
export function describeThrown(v: unknown): { type: string; message: string; stack?: string } {
  if (v instanceof Error) return { type: v.name, message: v.message, stack: v.stack };
  let message: string;
  try {
    message = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  } catch {
    message = Object.prototype.toString.call(v);
  }
  return { type: typeof v, message };
}

/** Installs the handlers; returns a function removing them (for tests). */
export function installLastResort(log: FatalLog, exit: (code: number) => void = (c) => process.exit(c)): () => void {
  const die = (kind: FatalKind, v: unknown): void => {
    try {
      log.fatal({ kind, error: describeThrown(v) }, 'Exiting on an error nothing handled; the programmed rules stay in place until the restarted proxy syncs');
    } catch {
      process.stderr.write(`kube-proxy-native: ${kind}: ${describeThrown(v).stack ?? describeThrown(v).message}\n`);
    }
    exit(LAST_RESORT_EXIT_CODE);
  };
  const onException = (err: unknown): void => die('uncaughtException', err);
  const onRejection = (reason: unknown): void => die('unhandledRejection', reason);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
