// RulesetGuard's decisions with a scripted monitor: whose commits count, what a lost event or a
// failed monitor leads to, and how its warnings are bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MonitorEvent, NftMonitor } from '../../src/native';
import { RulesetGuard, type GuardReason } from '../../src/app/ruleset-guard';
import { guardedTables } from '../../src/proxier/nftables';
import { FakeClock } from '../runner/fake-clock';

function setup(o: { failFirstOpen?: boolean } = {}) {
  const clock = new FakeClock();
  const repairs: GuardReason[][] = [];
  const warnings: Record<string, unknown>[] = [];
  const errors: string[] = [];
  let emit: (e: MonitorEvent) => void = () => {};
  let opens = 0;
  let failOpen = !!o.failFirstOpen;
  const guard = new RulesetGuard({
    tables: guardedTables(['ip', 'ip6']), ownPortIds: () => [42], clock, reopenMs: 5000,
    repair: (r) => repairs.push(r),
    log: { info() {}, error: (_o, m) => errors.push(m), warn: (w) => warnings.push(w as Record<string, unknown>) },
    openMonitor: ((_opts: unknown, onEvent: (e: MonitorEvent) => void) => {
      opens++;
      if (failOpen) { failOpen = false; throw new Error('EPERM'); }
      emit = onEvent;
      return { close() {} } as unknown as NftMonitor;
    }) as typeof NftMonitor.open,
  });
  guard.start();
  const commit = (portId: number, changes: Partial<import('../../src/native').MonitorChange>[]) => emit({
    type: 'commit', portId, pid: 7, comm: 'nft',
    changes: changes.map((c) => ({ op: 'delete', kind: 'rule', family: 'ip', table: 'kube-proxy', count: 1, ...c })) as never,
  });
  return { clock, repairs, warnings, errors, guard, commit, emit: (e: MonitorEvent) => emit(e), opens: () => opens };
}

test('a foreign change to our rules is repaired at once and logged with who and what', () => {
  const s = setup();
  s.commit(1234, [{ name: 'services', count: 3 }]);
  assert.deepEqual(s.repairs, [['foreign_change']]);
  assert.equal(s.warnings[0].comm, 'nft');
  assert.equal(s.warnings[0].changes, 'delete 3 rules ip kube-proxy services');
});

test('our own commits, other tables and the affinity set the packet path fills are not tampering', () => {
  const s = setup();
  s.commit(42, [{ name: 'services' }]);
  s.commit(1234, [{ table: 'filter' }, { family: 'inet' }]);
  s.commit(1234, [{ kind: 'element', op: 'add', name: 'affinity', count: 9 }]);
  assert.deepEqual(s.repairs, []);
  s.commit(1234, [{ op: 'unknown', kind: 'unknown', table: '' }]);
  assert.deepEqual(s.repairs, [['foreign_change']], 'a message the monitor could not read counts');
});

test('lost events and a failed monitor lead to a repair, and the monitor is reopened', async () => {
  const s = setup();
  s.emit({ type: 'overflow', overflow: true });
  assert.deepEqual(s.repairs, [['events_lost']]);
  s.emit({ type: 'error', error: { errno: 9, code: 'EBADF', message: 'recv: bad file descriptor' } });
  await s.clock.advance(1000);
  assert.deepEqual(s.repairs, [['events_lost'], ['events_lost']], 'the second repair waits for the limiter (1 s)');
  assert.equal(s.opens(), 1);
  await s.clock.advance(5000);
  assert.equal(s.opens(), 2);
});

test('a monitor that cannot be opened is retried', async () => {
  const s = setup({ failFirstOpen: true });
  assert.equal(s.opens(), 1);
  assert.match(s.errors[0], /Cannot watch for changes/);
  await s.clock.advance(5000);
  assert.equal(s.opens(), 2);
  s.commit(1234, [{ name: 'services' }]);
  assert.deepEqual(s.repairs, [['foreign_change']]);
});

test('warnings are bounded to one a second while changes keep coming', async () => {
  const s = setup();
  for (let i = 0; i < 50; i++) {
    s.commit(1234, [{ name: 'services' }]);
    await s.clock.advance(50);
  }
  assert.equal(s.warnings.length, 3);
  assert.equal(s.warnings[1].notLogged, 19);
  assert.ok(s.repairs.length <= 3, `${s.repairs.length} repairs in 2.5 s`);
});
