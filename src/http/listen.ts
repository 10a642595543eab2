// Binding a server, with the setting or Service it serves named in the error when the port can't be had.
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/** Listens; `onError` then receives errors the server meets while running (e.g. EMFILE on accept). */
export function listen(
  server: http.Server,
  host: string,
  port: number,
  what: string,
  onError: (err: Error) => void = () => undefined,
  onClose: () => void = () => undefined,
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException): void => reject(new Error(`${what}: cannot listen on ${host}:${port}: ${err.code ?? err.message}`));
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      // Without a listener, an 'error' after start-up (accept failing for lack of descriptors) is fatal.
      server.on('error', onError);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => {
              onClose();
              r();
            });
            server.closeAllConnections();
          }),
      });
    });
  });
}
