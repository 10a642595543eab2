// The logging calls every folder of src/ makes, as one interface; pino's Logger satisfies it, and a
// test passes a recorder. A piece that uses only some levels asks for Pick<Log, ...>, so what it may
// log is visible in its signature.
export interface Log {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  fatal(obj: object, msg: string): void;
}

export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
