// nf_conntrack_tcp_be_liberal as the proxy reads it at start-up: the kernel's value (not the
// config's), from the own namespace's /proc/sys or, against another namespace, read inside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSysctlInt } from '../../src/base/sysctl';
import { readTcpBeLiberal, TCP_BE_LIBERAL } from '../../src/app/tcp-be-liberal';
import { withNetns } from '../helpers/netns';

function procRootWith(text: string | null): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-proc-'));
  if (text !== null) {
    fs.mkdirSync(path.dirname(path.join(root, TCP_BE_LIBERAL)), { recursive: true });
    fs.writeFileSync(path.join(root, TCP_BE_LIBERAL), text);
  }
  return root;
}

test('own namespace: non-zero is liberal; 0, garbage or a missing file is not (the drop rule is installed)', () => {
  assert.equal(readTcpBeLiberal({ procRoot: procRootWith('1\n') }), true);
  assert.equal(readTcpBeLiberal({ procRoot: procRootWith('2\n') }), true);
  assert.equal(readTcpBeLiberal({ procRoot: procRootWith('0\n') }), false);
  assert.equal(readTcpBeLiberal({ procRoot: procRootWith('yes\n') }), false);
  assert.equal(readTcpBeLiberal({ procRoot: procRootWith(null) }), false);
});

test('parseSysctlInt takes one integer only', () => {
  assert.equal(parseSysctlInt(' 1\n'), 1);
  assert.equal(parseSysctlInt('0'), 0);
  assert.equal(parseSysctlInt('1 2'), undefined);
  assert.equal(parseSysctlInt(''), undefined);
});

test('another namespace: its own value is read, not ours', async () => {
  await withNetns(async (ns) => {
    const file = `/proc/sys/${TCP_BE_LIBERAL}`;
    ns.exec('sh', ['-c', `echo 0 > ${file}`]);
    assert.equal(readTcpBeLiberal({ netns: ns.path }), false);
    ns.exec('sh', ['-c', `echo 1 > ${file}`]);
    assert.equal(readTcpBeLiberal({ netns: ns.path }), true);
    assert.equal(readTcpBeLiberal({ netns: '/run/netns/kpn-no-such-namespace' }), false, 'unreadable: not liberal');
  }, 'kpn-lib');
});
