// Run as a child process by last-resort.test.ts: installs the last resort as main() does, then
// misbehaves in the way argv[2] names.
import * as net from 'node:net';
import { startHealthServer } from '../../src/health/health-server';
import { ProxyHealth } from '../../src/health/proxy-health';
import { createLogger, installLastResort } from '../../src/log';

const log = createLogger({ format: 'json', verbosity: 0 });
installLastResort(log);

function statusOf(port: number, request: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    let data = '';
    const s = net.connect(port, '127.0.0.1', () => s.write(request));
    s.on('data', (d) => (data += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1]) || undefined));
  });
}

/** Bad requests and a buggy handler against a real health server: the process must live on. */
async function handlerBug(): Promise<void> {
  const health = new ProxyHealth(60_000, undefined, {
    staleResources: () => {
      throw new Error('bug in the staleness input');
    },
  });
  const server = await startHealthServer({ bindAddress: '127.0.0.1:0', health, log });
  const ask = (target: string) => statusOf(server.port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  const result = { doubleSlash: await ask('//'), percent: await ask('/%'), healthz: await ask('/healthz'), livez: await ask('/livez') };
  await server.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

switch (process.argv[2]) {
  case 'throw':
    setTimeout(() => {
      throw new Error('boom in a timer');
    }, 10);
    break;
  case 'throw-string':
    setTimeout(() => {
      throw 'a bare string'; // eslint-disable-line no-throw-literal
    }, 10);
    break;
  case 'reject':
    void Promise.reject(new Error('nobody awaited this'));
    break;
  case 'handler-bug':
    void handlerBug();
    break;
  default:
    throw new Error(`unknown case ${process.argv[2]}`);
}
