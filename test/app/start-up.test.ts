// startProxy's start-up and shutdown against a real kernel (a fresh netns) and a real API server:
// what it opened is closed again, whether start-up fails part-way or the proxy is stopped.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readlinkSync } from 'node:fs';
import * as net from 'node:net';
import { startProxy } from '../../src/app/proxy-app';
import { parseCommandLine } from '../../src/config';
import { createLogger } from '../../src/log';
import { TestApiServer } from '../apiserver/server';
import { withNetns, type TestNetns } from '../helpers/netns';
import { eventually, freePort } from '../traffic/harness';
import { NODE_NAME, namespace, node } from '../traffic/fixtures';

const quiet = createLogger({ format: 'json', verbosity: 0, destination: { write: () => true } });

/** Netlink sockets of user processes in the namespace (kernel sockets have port id 0). */
function userNetlinkSockets(ns: TestNetns): string[] {
  return ns.exec('cat', ['/proc/net/netlink']).trim().split('\n').slice(1)
    .map((l) => l.trim().split(/\s+/)).filter((f) => f[2] !== '0').map((f) => `protocol ${f[1]} port ${f[2]}`);
}

/** This process's open sockets, by inode (netlink, TCP, Unix: all of them). */
function openSockets(): Set<string> {
  const out = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith('socket:')) out.add(target);
    } catch { /* the fd closed while we listed */ }
  }
  return out;
}

const opened = (before: Set<string>): string[] => [...openSockets()].filter((s) => !before.has(s));

async function config(extra: string[]) {
  const cl = parseCommandLine([
    '--proxy-mode=nftables', `--hostname-override=${NODE_NAME}`, '--cluster-cidr=10.0.0.0/16',
    `--healthz-bind-address=127.0.0.1:${await freePort()}`, `--metrics-bind-address=127.0.0.1:${await freePort()}`, ...extra,
  ]);
  assert.deepEqual(cl.errors, []);
  return cl.config;
}

/** Binds a port on 127.0.0.1, or says why it cannot. */
function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

describe('startProxy start-up and shutdown', { timeout: 60_000 }, () => {
  it('closes the nftables socket when the kubeconfig cannot be loaded', async () => {
    await withNetns(async (ns) => {
      const before = openSockets();
      const cfg = await config(['--kubeconfig=/nonexistent/kubeconfig']);
      await assert.rejects(startProxy({ config: cfg, log: quiet, netns: ns.path }), /--kubeconfig: file \/nonexistent\/kubeconfig does not exist/);
      assert.deepEqual(userNetlinkSockets(ns), [], 'no netlink socket left in the namespace');
      assert.deepEqual(opened(before), []);
    });
  });

  it('with --bind-address-hard-fail, closes the healthz server and the nftables socket when the metrics port is taken', async () => {
    await withNetns(async (ns) => {
      const cfg = await config(['--bind-address-hard-fail=true']);
      const healthzPort = Number(cfg.healthzBindAddress.split(':')[1]);
      const squatter = net.createServer();
      await new Promise<void>((r) => squatter.listen(Number(cfg.metricsBindAddress.split(':')[1]), '127.0.0.1', r));
      try {
        const before = openSockets();
        await assert.rejects(startProxy({ config: cfg, log: quiet, netns: ns.path, master: 'http://127.0.0.1:1' }),
          /metricsBindAddress: cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/);
        assert.deepEqual(userNetlinkSockets(ns), []);
        assert.deepEqual(opened(before), []);
        assert.ok(await canBind(healthzPort), 'the healthz port is free again');
      } finally {
        await new Promise((r) => squatter.close(r));
      }
    });
  });

  it('without --bind-address-hard-fail (the default), runs on and listens on the metrics port once it is free', async () => {
    await withNetns(async (ns) => {
      const cfg = await config([]);
      assert.equal(cfg.bindAddressHardFail, false);
      const metricsPort = Number(cfg.metricsBindAddress.split(':')[1]);
      const squatter = net.createServer();
      await new Promise<void>((r) => squatter.listen(metricsPort, '127.0.0.1', r));
      const lines: string[] = [];
      const log = createLogger({ format: 'json', verbosity: 0, destination: { write: (l: string) => { lines.push(l); return true; } } });
      const proxy = await startProxy({ config: cfg, log, netns: ns.path, master: 'http://127.0.0.1:1' });
      try {
        assert.equal(proxy.metricsPort, 0, 'not listening yet');
        assert.ok(proxy.healthPort > 0, 'the healthz server is unaffected');
        assert.ok(lines.some((l) => /The metrics server cannot listen; retrying/.test(l) && /EADDRINUSE/.test(l)), lines.join(''));
        await new Promise((r) => squatter.close(r));
        await eventually(() => proxy.metricsPort === metricsPort, 'the metrics server to listen after the port was freed', 15_000);
        assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/proxyMode`)).status, 200);
      } finally {
        await proxy.stop();
        squatter.close();
      }
      assert.ok(await canBind(metricsPort), 'the metrics port is free again');
    });
  });

  it('an empty --healthz-bind-address or --metrics-bind-address disables that server, as upstream ("Set empty to disable")', async () => {
    await withNetns(async (ns) => {
      const cl = parseCommandLine(['--proxy-mode=nftables', `--hostname-override=${NODE_NAME}`, '--healthz-bind-address=', '--metrics-bind-address=']);
      assert.deepEqual(cl.errors, []);
      assert.equal(cl.config.healthzBindAddress, '');
      assert.equal(cl.config.metricsBindAddress, '');
      const lines: string[] = [];
      const log = createLogger({ format: 'json', verbosity: 0, destination: { write: (l: string) => { lines.push(l); return true; } } });
      const proxy = await startProxy({ config: cl.config, log, netns: ns.path, master: 'http://127.0.0.1:1' });
      try {
        assert.equal(proxy.healthPort, 0);
        assert.equal(proxy.metricsPort, 0);
        assert.ok(lines.some((l) => /The healthz server is disabled/.test(l)) && lines.some((l) => /The metrics server is disabled/.test(l)), lines.join(''));
        assert.ok(!lines.some((l) => /cannot listen/.test(l)), 'no bind retry for a disabled server');
      } finally {
        await proxy.stop();
      }
    });
  });

  it('stop() closes the servers, the watches, the monitor and the socket it opened', async () => {
    await withNetns(async (ns) => {
      const api = new TestApiServer({ bookmarkIntervalMs: 0 });
      await api.start();
      try {
        api.create('nodes', node(NODE_NAME, '192.0.2.10'));
        api.create('namespaces', namespace('default'));
        const before = openSockets();
        const proxy = await startProxy({ config: await config([]), log: quiet, netns: ns.path, master: api.url });
        assert.ok((await proxy.nextSync()).ok, 'the first sync succeeded');
        assert.ok(userNetlinkSockets(ns).length >= 2, 'the commit socket and the change monitor are open');
        await proxy.stop();
        assert.deepEqual(userNetlinkSockets(ns), []);
        assert.ok(await canBind(proxy.healthPort) && await canBind(proxy.metricsPort), 'both ports are free again');
        // The API server's side of the watch connections closes once it sees the client go.
        await eventually(() => opened(before).length === 0, () => `sockets still open: ${opened(before).join(', ')}`);
      } finally {
        await api.stop();
      }
    });
  });
});
