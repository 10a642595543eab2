// NftMonitor against the real kernel: foreign changes (the nft binary) to our table are reported
// within a second, once per commit; our own commits and other tables are not.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CommitReport, isOwnReport, Transaction } from '../../src/native';
import { withNetns } from '../helpers/netns';
import { closeLab, isCommit, MAP, openLab, sentinel, summary, T } from './monitor-lab';

const FOREIGN: { what: string; args: string[]; expect: string[] }[] = [
  { what: 'flush table', args: ['flush', 'table', 'ip', T], expect: ['delete rule services x2', 'delete rule svc-input x1'] },
  { what: 'delete chain', args: ['delete', 'chain', 'ip', T, 'unused'], expect: ['delete chain unused x1'] },
  { what: 'delete set', args: ['delete', 'set', 'ip', T, 'extra'], expect: ['delete set extra x1'] },
  {
    what: 'delete one map element', args: ['delete', 'element', 'ip', T, MAP.name, '{ 10.0.0.2 . tcp . 80 }'],
    expect: ['delete element svc-map x1'],
  },
  { what: 'add a rule', args: ['add', 'rule', 'ip', T, 'services', 'drop'], expect: ['add rule services x1'] },
  {
    // Deleting a set announces the set, not its elements.
    what: 'delete the table', args: ['delete', 'table', 'ip', T],
    expect: ['delete chain services x1', 'delete chain svc-input x1', 'delete chain unused x1', 'delete rule services x2',
      'delete rule svc-input x1', 'delete set extra x1', 'delete set svc-map x1', 'delete table x1'],
  },
];

for (const c of FOREIGN) {
  test(`a foreign "${c.what}" is reported within 1 s, once, with the process that did it`, () => withNetns(async (ns) => {
    const lab = await openLab(ns);
    try {
      const t0 = Date.now();
      ns.nft(...c.args);
      const e = (await lab.log.waitFor(isCommit, 1000)) as CommitReport;
      assert.ok(Date.now() - t0 <= 1000);
      assert.deepEqual(summary(e.changes), c.expect);
      assert.equal(e.comm, 'nft');
      assert.ok(Number.isInteger(e.pid) && e.pid! > 0, `pid ${e.pid}`);
      assert.ok(Number.isInteger(e.genId), `genId ${e.genId}`);
      assert.notEqual(e.portId, lab.nft.portId);
      assert.equal(isOwnReport(e, [lab.nft.portId]), false);
      if (c.what !== 'delete the table') {
        await sentinel(lab);
        assert.equal(lab.log.events.length, 2, JSON.stringify(lab.log.events));  // the change, then the sentinel
      }
    } finally {
      closeLab(lab);
    }
  }));
}

test('our own commits, small and large (50k elements, 2k chains), cause no report and reach no reader', () => withNetns(async (ns) => {
  const lab = await openLab(ns);
  try {
    const tx = new Transaction().declareSet('ip', T, MAP);
    const elements = [];
    for (let i = 0; i < 50_000; i++) {
      elements.push({ key: [`10.${1 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`, 'tcp', 443], verdict: { kind: 'jump', chain: 'services' } as const });
    }
    tx.addElements('ip', T, MAP.name, elements);
    for (let i = 0; i < 2000; i++) tx.addChain('ip', T, { name: `own-${i}` });
    await lab.nft.commit(tx);
    await lab.nft.commit(new Transaction().flushTable('ip', T));
    const s = await sentinel(lab);
    assert.deepEqual(lab.log.events, [s]);
    // The kernel-side filter dropped them: only the sentinel's two datagrams (changes, NEWGEN) got through.
    assert.deepEqual(lab.monitor.stats().datagrams, 2);
  } finally {
    closeLab(lab);
  }
}));

test('changes to other tables (another name, another family) cause no report', () => withNetns(async (ns) => {
  const lab = await openLab(ns);
  try {
    ns.nft('add', 'table', 'ip', 'other');
    ns.nft('add', 'chain', 'ip', 'other', 'c');
    ns.nft('add', 'table', 'ip6', T);
    ns.nft('add', 'chain', 'ip6', T, 'services');
    ns.nft('delete', 'table', 'ip', 'other');
    const s = await sentinel(lab);
    assert.deepEqual(lab.log.events, [s]);
    assert.deepEqual(summary(s.changes), ['add chain sentinel x1']);
  } finally {
    closeLab(lab);
  }
}));

test('setOwnPortIds: a commit is reported until its socket is declared ours, then no more', () => withNetns(async (ns) => {
  const lab = await openLab(ns, { own: false });
  try {
    const fixture = (await lab.log.waitFor(isCommit, 1000)) as CommitReport;
    assert.equal(fixture.portId, lab.nft.portId);
    assert.equal(isOwnReport(fixture, [lab.nft.portId]), true);
    // The kernel gives the committing thread's id and name: here a libuv worker thread of this process,
    // named "node" by Node 20 (the process's name) and "libuv-worker" by Node 24.
    assert.ok(existsSync(`/proc/${process.pid}/task/${fixture.pid}`), `pid ${fixture.pid}`);
    assert.equal(fixture.comm, readFileSync(`/proc/${process.pid}/task/${fixture.pid}/comm`, 'utf8').trim());
    assert.ok(summary(fixture.changes).includes('add element svc-map x3'));
    // Among other ids, so the filter's compare-and-jump chain is exercised past its first entry.
    lab.monitor.setOwnPortIds([111, lab.nft.portId, 222]);
    const before = lab.log.events.length;
    const read = lab.monitor.stats().datagrams;
    await lab.nft.commit(new Transaction().addChain('ip', T, { name: 'mine' }));
    const s = await sentinel(lab);
    assert.deepEqual(lab.log.events.slice(before), [s]);
    assert.equal(lab.monitor.stats().datagrams, read + 2);  // dropped in the kernel, not by the reader
  } finally {
    closeLab(lab);
  }
}));

test('Nft.portId is the port the kernel names in our notifications and stays readable after close', () => withNetns(async (ns) => {
  const lab = await openLab(ns, { own: false });
  const id = lab.nft.portId;
  assert.ok(Number.isInteger(id) && id > 0);
  assert.notEqual(id, lab.monitor.portId);
  closeLab(lab);
  assert.equal(lab.nft.portId, id);
}));
