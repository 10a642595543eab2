// `host:port` as kube-proxy's bindAddress settings spell it (IPv6 in brackets).
import * as net from 'node:net';

export interface BindAddress {
  host: string;
  port: number;
}

export function parseBindAddress(value: string, field: string): BindAddress {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  if (!m) throw new Error(`${field}: ${JSON.stringify(value)} is not host:port`);
  const host = m[1] ?? m[2];
  const port = Number(m[3]);
  if (!net.isIP(host)) throw new Error(`${field}: ${JSON.stringify(host)} is not an IP address`);
  if (port < 0 || port > 65535) throw new Error(`${field}: port ${port} is out of range`);
  return { host, port };
}
