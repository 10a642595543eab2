// A raw TCP client for throwing bytes at an HTTP server: what came back, and whether the server closed.
import * as net from 'node:net';

export interface Exchange {
  /** Everything the server sent, as latin1 text. */
  data: string;
  /** The status of the first response, if one came. */
  status: number | undefined;
  /** The connection ended before `waitMs` ran out (closed by the server or reset). */
  closed: boolean;
  error?: string;
}

export type Sender = string | Buffer | ((socket: net.Socket) => void);

/** Connects to 127.0.0.1:port, sends, and collects until the connection ends or waitMs passes. */
export function exchange(port: number, send: Sender, waitMs = 20_000): Promise<Exchange> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const socket = net.connect(port, '127.0.0.1');
    const finish = (closed: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      const data = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      resolve({ data, status: m ? Number(m[1]) : undefined, closed, error });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('connect', () => {
      if (typeof send === 'function') send(socket);
      else socket.write(send);
    });
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => finish(true));
  });
}

/** Holds `n` connections open without sending anything; resolves once all are established or refused. */
export async function idleConnections(port: number, n: number): Promise<{ sockets: net.Socket[]; closedWithoutData: () => number; answered: () => string[] }> {
  const sockets: net.Socket[] = [];
  const received = new Map<net.Socket, string>();
  const closed = new Set<net.Socket>();
  await Promise.all(
    Array.from({ length: n }, () =>
      new Promise<void>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => resolve());
        sockets.push(s);
        s.on('data', (d) => received.set(s, (received.get(s) ?? '') + d.toString('latin1')));
        s.on('error', () => resolve());
        s.on('close', () => {
          closed.add(s);
          resolve();
        });
      }),
    ),
  );
  return {
    sockets,
    closedWithoutData: () => [...closed].filter((s) => !received.has(s)).length,
    answered: () => [...received.values()],
  };
}

/** Polls `cond` every 50 ms until it holds or `ms` passes; returns whether it held. */
export async function eventually(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

/** The body of the first response in `data` (Content-Length or chunked). */
export function bodyOf(data: string): string {
  const split = data.indexOf('\r\n\r\n');
  if (split < 0) return '';
  const head = data.slice(0, split).toLowerCase();
  let rest = data.slice(split + 4);
  const len = /\r\ncontent-length: *(\d+)/.exec(head);
  if (len) return rest.slice(0, Number(len[1]));
  if (!/\r\ntransfer-encoding: *chunked/.test(head)) return rest;
  let body = '';
  for (;;) {
    const nl = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, nl), 16);
    if (!(size > 0)) return body;
    body += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
}

/** A header of the first response in `data`, or undefined. */
export function headerOf(data: string, name: string): string | undefined {
  const head = data.slice(0, Math.max(0, data.indexOf('\r\n\r\n')));
  for (const line of head.split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    if (line.slice(0, i).toLowerCase() === name.toLowerCase()) return line.slice(i + 1).trim();
  }
  return undefined;
}
