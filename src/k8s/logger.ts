// The logging calls this folder makes; pino's Logger satisfies it.
export interface Logger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
