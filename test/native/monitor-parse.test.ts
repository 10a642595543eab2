// The monitor's parser and per-commit grouping on hand-made datagrams (groupNotifications runs the
// reader's code without a socket): what the kernel does not send on demand — unknown message
// types, malformed messages, a lost NEWGEN — and how own ports and interest filter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadAddon } from '../../src/native';
import { attr, be32 } from '../helpers/netlink-attrs';

const NFT = 10 << 8;  // NFNL_SUBSYS_NFTABLES in nlmsg_type
const MSG = { NEWTABLE: 0, NEWCHAIN: 3, DELRULE: 8, NEWSETELEM: 12, NEWGEN: 15, DESTROYCHAIN: 27 };
const IP = 2;

const str = (type: number, s: string) => attr(type, Buffer.from(`${s}\0`));

function msg(type: number, portId: number, attrs: Buffer[], family = IP): Buffer {
  const body = Buffer.concat([Buffer.from([family, 0, 0, 0]), ...attrs]);
  const h = Buffer.alloc(16);
  h.writeUInt32LE(16 + body.length, 0);
  h.writeUInt16LE(NFT | type, 4);
  h.writeUInt32LE(portId, 12);
  return Buffer.concat([h, body]);
}
const gen = (portId: number, genId: number, pid: number, comm: string) =>
  msg(MSG.NEWGEN, portId, [be32(1, genId), be32(2, pid), str(3, comm)], 0);
const rule = (portId: number, table: string, chain: string, family = IP) => msg(MSG.DELRULE, portId, [str(1, table), str(2, chain)], family);
const elems = (portId: number, set: string, n: number) => {
  const list = Buffer.concat(Array.from({ length: n }, () => attr(1, attr(1, Buffer.alloc(8)))));
  return msg(MSG.NEWSETELEM, portId, [str(1, 'kp'), str(2, set), attr(3, list)]);
};

const INTEREST = [{ family: IP, table: 'kp' }];
const group = (datagrams: Buffer[], own: number[] = []) => loadAddon().groupNotifications(datagrams, INTEREST, own);

test('one report per commit: rules summed per chain, elements per set, NEWGEN fields', () => {
  const events = group([
    Buffer.concat([rule(7, 'kp', 'a'), rule(7, 'kp', 'a'), rule(7, 'kp', 'b'), elems(7, 'm', 3), elems(7, 'm', 1)]),
    gen(7, 42, 1234, 'nft'),
  ]);
  assert.deepEqual(events, [{
    type: 'commit', portId: 7, genId: 42, pid: 1234, comm: 'nft', changes: [
      { op: 'delete', kind: 'rule', family: IP, table: 'kp', name: 'a', count: 2 },
      { op: 'delete', kind: 'rule', family: IP, table: 'kp', name: 'b', count: 1 },
      { op: 'add', kind: 'element', family: IP, table: 'kp', name: 'm', count: 4 },
    ],
  }]);
});

test('own ports, other tables and other families are dropped, with the NEWGEN of commits left empty', () => {
  const events = group([
    rule(7, 'kp', 'a'), gen(7, 1, 7, 'node'),                       // own
    rule(8, 'other', 'a'), gen(8, 2, 8, 'nft'),                      // another table
    rule(9, 'kp', 'a', 10), gen(9, 3, 9, 'nft'),                     // ip6 kp
    msg(MSG.NEWCHAIN, 11, [str(1, 'kp'), be32(2, 5), str(3, 'c')]), gen(11, 4, 11, 'nft'),
  ], [7]);
  assert.deepEqual(events.map((e) => e.type === 'commit' && [e.genId, e.changes.map((c) => `${c.op} ${c.kind} ${c.name}`)]),
    [[4, ['add chain c']]]);
});

test('unknown message types and malformed messages are reported as unknown, whatever their table', () => {
  const events = group([
    Buffer.concat([msg(60, 5, [str(1, 'elsewhere')]), msg(MSG.NEWCHAIN, 5, [Buffer.from([2, 0])])]),
    msg(MSG.DESTROYCHAIN, 5, [str(1, 'kp'), str(3, 'gone')]),  // a newer kernel's "destroy" is a delete
    gen(5, 9, 5, 'x'),
  ]);
  assert.deepEqual(events, [{
    type: 'commit', portId: 5, genId: 9, pid: 5, comm: 'x', changes: [
      { op: 'unknown', kind: 'unknown', family: IP, table: '', count: 1, msgType: 60 },
      { op: 'unknown', kind: 'unknown', family: IP, table: '', count: 1, msgType: MSG.NEWCHAIN },
      { op: 'delete', kind: 'chain', family: IP, table: 'kp', name: 'gone', count: 1 },
    ],
  }]);
  // Broken framing: a length past the end of the datagram.
  const bad = rule(5, 'kp', 'a');
  bad.writeUInt32LE(9999, 0);
  assert.deepEqual(group([bad]).map((e) => e.type === 'commit' && [e.portId, e.changes[0].kind]), [[5, 'unknown']]);
});

test('a lost NEWGEN: the next commit starts a new report, the last one is reported without generation', () => {
  const events = group([rule(5, 'kp', 'a'), rule(6, 'kp', 'b'), gen(6, 3, 6, 'nft'), rule(7, 'kp', 'c')]);
  assert.deepEqual(events.map((e) => e.type === 'commit' && [e.portId, e.genId, e.changes[0].name]),
    [[5, undefined, 'a'], [6, 3, 'b'], [7, undefined, 'c']]);
});

test('bad arguments are refused', () => {
  const add = loadAddon().groupNotifications;
  assert.throws(() => add('x' as never, INTEREST, []), /datagrams must be an array/);
  assert.throws(() => add([1 as never], INTEREST, []), /datagrams\[0\] must be a Buffer/);
  assert.throws(() => add([], [{ family: 3, table: 'x' }], []), /interest\[0\]\.family/);
});
