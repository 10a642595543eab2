// Binding a server, with the setting or Service it serves named in the error when the port can't be had.
// A wildcard host ("0.0.0.0" or "::") listens on both families, as Go's net.Listen("tcp", ...) does for
// upstream's servers: one "::" socket with IPV6_V6ONLY off, or "0.0.0.0" on a host without IPv6.
import type * as http from 'node:http';
import * as net from 'node:net';

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/** Errors of a "::" bind that mean the host has no IPv6 (module absent, disabled at boot). */
const NO_IPV6 = new Set(['EAFNOSUPPORT', 'EADDRNOTAVAIL', 'EPROTONOSUPPORT']);

export function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || (net.isIPv6(host) && /^[0:]+$/.test(host));
}

/** The binds to try for `host`, in order; the next is tried only when the previous failed for lack of IPv6. */
export function bindAttempts(host: string): Array<{ host: string; ipv6Only?: boolean }> {
  return isWildcardHost(host) ? [{ host: '::', ipv6Only: false }, { host: '0.0.0.0' }] : [{ host }];
}

export function lacksIpv6(err: NodeJS.ErrnoException): boolean {
  return err.code !== undefined && NO_IPV6.has(err.code);
}

function bindOnce(server: http.Server, port: number, a: { host: string; ipv6Only?: boolean }): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException): void => reject(err);
    server.once('error', fail);
    server.listen({ port, host: a.host, ipv6Only: a.ipv6Only }, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

/** Listens; `onError` then receives errors the server meets while running (e.g. EMFILE on accept). */
export async function listen(
  server: http.Server,
  host: string,
  port: number,
  what: string,
  onError: (err: Error) => void = () => undefined,
  onClose: () => void = () => undefined,
): Promise<RunningServer> {
  const attempts = bindAttempts(host);
  for (let i = 0; ; i++) {
    try {
      await bindOnce(server, port, attempts[i]);
      break;
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (i + 1 < attempts.length && lacksIpv6(err)) continue;
      const where = host.includes(':') ? `[${host}]` : host;
      throw Object.assign(new Error(`${what}: cannot listen on ${where}:${port}: ${err.code ?? err.message}`), { code: err.code });
    }
  }
  // Without a listener, an 'error' after start-up (accept failing for lack of descriptors) is fatal.
  server.on('error', onError);
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => {
          onClose();
          r();
        });
        server.closeAllConnections();
      }),
  };
}
