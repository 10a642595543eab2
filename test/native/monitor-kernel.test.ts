// What the kernel does that the monitor relies on or must live with: a full receive buffer is
// reported as an overflow (and the monitor goes on), and the packet path's updates of a dynamic
// set (session affinity), and their expiry, announce nothing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { rule, SetSpec, Transaction } from '../../src/native';
import { withNetns } from '../helpers/netns';
import { closeLab, isCommit, openLab, sentinel, summary, T } from './monitor-lab';

test('a full receive buffer is reported as an overflow, and the monitor goes on', () => withNetns(async (ns) => {
  const lab = await openLab(ns, { recvBufferBytes: 4096 });
  try {
    // A single burst does not overflow reliably (the reader often keeps up, even with 4 KiB). So
    // hold the event loop while 100 foreign commits arrive: at the latest when 64 batches wait for
    // JavaScript the reader blocks, the 4 KiB buffer fills, and the kernel drops the rest.
    execFileSync('ip', ['netns', 'exec', ns.name, 'bash', '-c', `for i in $(seq 1 100); do nft add chain ip ${T} b$i; done`]);
    await lab.log.waitFor((e) => e.type === 'overflow', 2000);
    assert.ok(lab.monitor.stats().overflows >= 1);
    const reported = lab.log.events.filter(isCommit).map((e) => summary(e.changes));
    assert.ok(reported.length < 100, `${reported.length} commits reported`);  // some were lost
    for (const r of reported) assert.match(r.join(), /^add chain b\d+ x1$/);
    const s = await sentinel(lab);
    assert.deepEqual(summary(s.changes), ['add chain sentinel x1']);
  } finally {
    closeLab(lab);
  }
}));

test('packet-path updates of a dynamic set with timeouts, and their expiry, cause no notification', () => withNetns(async (ns) => {
  const lab = await openLab(ns);
  try {
    const AFF: SetSpec = { name: 'affinity', key: ['ipv4_addr'], timeout: true, dynamic: true, defaultTimeoutSeconds: 1 };
    const tx = new Transaction().addSet('ip', T, AFF)
      .addChain('ip', T, { name: 'aff-in', base: { type: 'filter', hook: 'input', priority: -10 } })
      .addRule('ip', T, 'aff-in', rule('ip').dynsetUpdate(['saddr'], AFF.name, 1).build());
    await lab.nft.commit(tx);
    // Loopback traffic inside the namespace: one UDP datagram from each of three source addresses.
    const send = `const s = require('node:dgram').createSocket('udp4');
      s.bind(0, process.argv[1], () => s.send('x', 9, '127.0.0.1', () => s.close()));`;
    for (const src of ['127.0.0.1', '127.0.0.2', '127.0.0.3']) ns.exec(process.execPath, ['-e', send, src]);
    const listed = ns.nftJson().find((o) => o.set?.name === AFF.name)?.set;
    assert.equal(listed?.elem?.length, 3, JSON.stringify(listed));  // the packet path did add them
    await new Promise((r) => setTimeout(r, 3500));  // 1 s timeout, then the set's garbage collection
    assert.equal(ns.nftJson().find((o) => o.set?.name === AFF.name)?.set?.elem, undefined);
    const s = await sentinel(lab);
    assert.deepEqual(lab.log.events, [s]);
    assert.equal(lab.monitor.stats().datagrams, 2);  // not even one datagram besides the sentinel's
  } finally {
    closeLab(lab);
  }
}));
