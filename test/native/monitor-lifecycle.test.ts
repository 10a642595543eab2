// NftMonitor's lifetime: close() at any moment (from outside, from its own callback, while its
// reader is blocked on a full queue, twice), bad arguments, and process/worker teardown with a
// monitor still open while changes arrive.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { MonitorEvent, NftMonitor } from '../../src/native';
import { TestNetns, withNetns } from '../helpers/netns';
import { closeLab, EventLog, isCommit, openLab, sentinel, T } from './monitor-lab';

const NATIVE = join(__dirname, '..', '..', 'src', 'native');

/** Starts `count` separate foreign commits (one nft process each) in the background. */
function flood(ns: TestNetns, count: number, prefix = 'f'): Promise<number | null> {
  const script = `for i in $(seq 1 ${count}); do nft add chain ip ${T} ${prefix}$i || exit 1; done`;
  const child = spawn('ip', ['netns', 'exec', ns.name, 'bash', '-c', script], { stdio: 'ignore' });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

const settle = () => new Promise((r) => setTimeout(r, 300));

test('close() while foreign commits keep arriving: no event after it, close twice is harmless', () => withNetns(async (ns) => {
  const lab = await openLab(ns);
  const done = flood(ns, 60);
  await lab.log.waitFor(() => lab.log.events.filter(isCommit).length >= 5, 5000);
  lab.monitor.close();
  const seen = lab.log.events.length;
  lab.monitor.close();
  assert.equal(await done, 0);
  await settle();
  assert.equal(lab.log.events.length, seen);
  assert.equal(lab.monitor.isClosed, true);
  assert.throws(() => lab.monitor.setOwnPortIds([]), /closed/);
  assert.ok(lab.monitor.stats().datagrams >= 10);  // still readable after close
  lab.nft.close();
}));

test('close() from inside the event callback stops delivery at once', () => withNetns(async (ns) => {
  const events: MonitorEvent[] = [];
  const m = NftMonitor.open({ netns: ns.path, interest: [{ family: 'ip', table: T }] }, (e) => {
    events.push(e);
    if (events.length === 3) m.close();
  });
  ns.nft('add', 'table', 'ip', T);
  assert.equal(await flood(ns, 20), 0);
  await settle();
  assert.equal(events.length, 3);
  m.close();
}));

test('close() while the reader is blocked on a full queue to a busy event loop returns, and drops the backlog', () => withNetns(async (ns) => {
  const lab = await openLab(ns);
  // execFileSync holds the event loop: the reader fills the queue (64 batches) and then blocks.
  execFileSync('ip', ['netns', 'exec', ns.name, 'bash', '-c', `for i in $(seq 1 150); do nft add chain ip ${T} b$i; done`]);
  assert.equal(lab.log.events.length, 0);
  lab.monitor.close();
  // It stopped reading once the queue was full (150 commits are 300 datagrams): back-pressure.
  assert.ok(lab.monitor.stats().datagrams < 300, JSON.stringify(lab.monitor.stats()));
  await settle();
  assert.equal(lab.log.events.length, 0);
  lab.nft.close();
}));

test('opening in a namespace that does not exist gives a clear error', () => {
  assert.throws(() => NftMonitor.open({ netns: '/run/netns/kpn-no-such-ns', interest: [{ family: 'ip', table: T }] }, () => {}),
    (e: Error & { code?: string }) => e.code === 'ENOENT' && /kpn-no-such-ns/.test(e.message) && /open netns/.test(e.message));
});

test('bad arguments are refused with errors that name them', () => {
  const ok = { interest: [{ family: 'ip' as const, table: T }] };
  const cases: [unknown, RegExp][] = [
    [{ interest: [] }, /interest must list 1\.\.1024 tables/],
    [{ interest: [{ family: 'bridge', table: T }] }, /interest\[0\]\.family/],
    [{ interest: [{ family: 'ip', table: '' }] }, /interest\[0\]\.table must be 1\.\.255 bytes/],
    [{ ...ok, ownPortIds: Array.from({ length: 65 }, (_, i) => i) }, /ownPortIds: at most 64/],
    [{ ...ok, ownPortIds: [-1] }, /ownPortIds\[0\] must be an integer/],
    [{ ...ok, recvBufferBytes: 100 }, /recvBufferBytes must be an integer in 4096\.\./],
    [{ ...ok, netns: '' }, /opts\.netns/],
  ];
  for (const [opts, re] of cases) {
    assert.throws(() => NftMonitor.open(opts as never, () => {}), re, JSON.stringify(opts));
  }
  assert.throws(() => NftMonitor.open(ok, 'nope' as never), /onEvent: expected a function/);
});

test('a process exits normally with a monitor still open while changes arrive (env teardown)', () => withNetns(async (ns) => {
  ns.nft('add', 'table', 'ip', T);
  const code = `
    const { NftMonitor } = require(${JSON.stringify(NATIVE)});
    let n = 0;
    NftMonitor.open({ netns: ${JSON.stringify(ns.path)}, interest: [{ family: 'ip', table: ${JSON.stringify(T)} }] }, () => {
      if (++n === 3) { console.log('three'); setTimeout(() => process.exit(0), 20); }
    });
    console.log('opened');
    setTimeout(() => process.exit(2), 15000);  // also keeps the loop alive: the monitor does not`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let started: Promise<number | null> | undefined;
  child.stdout.on('data', (d) => {
    out += d;
    if (!started && out.includes('opened')) started = flood(ns, 40);
  });
  const exited = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  assert.equal(exited, 0);
  assert.deepEqual(out.trim().split('\n'), ['opened', 'three']);
  assert.equal(await started, 0);
}));

test('an idle open monitor does not keep the process alive', () => withNetns((ns) => {
  const code = `require(${JSON.stringify(NATIVE)}).NftMonitor.open({ netns: '${ns.path}', interest: [{ family: 'ip', table: 'x' }] }, () => {});
    console.log('opened')`;
  assert.equal(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8', timeout: 20_000 }).trim(), 'opened');
}));

test('terminating worker threads with an open monitor while changes arrive', () => withNetns(async (ns) => {
  ns.nft('add', 'table', 'ip', T);
  const code = `
    const { parentPort } = require('node:worker_threads');
    const { NftMonitor } = require(${JSON.stringify(NATIVE)});
    NftMonitor.open({ netns: ${JSON.stringify(ns.path)}, interest: [{ family: 'ip', table: ${JSON.stringify(T)} }] },
      (e) => parentPort.postMessage(e.type));
    setInterval(() => {}, 1000);  // an open monitor alone would let the worker end
    parentPort.postMessage('ready');`;
  for (let round = 0; round < 3; round++) {
    const w = new Worker(code, { eval: true });
    const got: string[] = [];
    const log = new EventLog();
    w.on('message', (m: string) => { got.push(m); log.push({ type: 'overflow', overflow: true }); });
    await log.waitFor(() => got.includes('ready'), 5000);
    const done = flood(ns, 30, `w${round}-`);
    await log.waitFor(() => got.filter((m) => m === 'commit').length >= 3, 10_000);
    assert.equal(await w.terminate(), 1);  // mid-flood: events are in flight
    assert.equal(await done, 0);
  }
  // The main thread's monitors still work afterwards.
  const lab = await openLab(ns);
  try {
    await sentinel(lab);
  } finally {
    closeLab(lab);
  }
}));
