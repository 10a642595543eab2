// The builder emits, expression for expression and register for register, what nft itself
// generates for the same rule text (compared with `nft --debug=netlink`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rule, rule, SetSpec, Transaction } from '../../src/native';
import { Expr } from '../../src/native/expressions';
import { natForMapData } from '../../src/native/rule-builder';
import { mapData } from '../../src/native/set-spec';
import { withNetns } from '../helpers/netns';
import { dataMapKinds, everyKind } from './fixtures';
import { parseNftDebug, renderExpr } from './nft-debug-render';

/** Builds a fixture and records each rule's expressions as the Transaction sends them. */
function capture(fixture: () => Transaction): { tx: Transaction; built: Map<string, string[][]> } {
  const built = new Map<string, string[][]>();
  const sets = new Map<string, SetSpec>();
  const { addRule, addSet } = Transaction.prototype;
  Transaction.prototype.addSet = function (this: Transaction, family, table, set, opts) {
    sets.set(`${family} ${table} ${set.name}`, set);
    return addSet.call(this, family, table, set, opts);
  };
  Transaction.prototype.addRule = function (this: Transaction, family, table, chain, r: Rule) {
    // A dnatMap's proto registers depend on the map's data (resolved by the Transaction the same way).
    const sent = (e: Expr) => (e.type === 'nat' && e.map ? natForMapData(e, mapData(sets.get(`${family} ${table} ${e.map}`)!)!) : e);
    const key = `${family} ${table} ${chain}`;
    built.set(key, [...(built.get(key) ?? []), r.exprs.map((e) => renderExpr(sent(e)))]);
    return addRule.call(this, family, table, chain, r);
  };
  try {
    return { tx: fixture(), built };
  } finally {
    Object.assign(Transaction.prototype, { addRule, addSet });
  }
}

for (const [name, fixture, minChains] of [['every kind', everyKind, 15], ['data maps', dataMapKinds, 4]] as const) {
  test(`every rule of the ${name} fixture matches nft --debug=netlink`, async () => {
    const { tx, built } = capture(fixture);
    await withNetns((ns) => {
      const debug = parseNftDebug(ns.exec('nft', ['--debug=netlink', '-f', '-'], tx.toNftScript()));
      assert.ok(built.size >= minChains);
      assert.deepEqual([...debug.keys()].sort(), [...built.keys()].sort());
      for (const [chain, rules] of built) assert.deepEqual(debug.get(chain), rules, chain);
    });
  });
}

// nft 1.0.6 cannot read constants on the left of a lookup, so the oracle comes in two halves: the
// key as nft loads it for `update @set { <same key> }`, and the lookup as nft emits it for a key
// of the same types made of packet fields only.
for (const [family, client, vip, ep] of [['ip', 'ip saddr', '172.30.0.41', '10.180.0.1'], ['ip6', 'ip6 saddr', 'fd00::41', 'fd00:10::1']] as const) {
  test(`a lookup with constant key parts (${family}) loads its key as nft does for the same key`, async () => {
    const addr = family === 'ip' ? 'ipv4_addr' : 'ipv6_addr';
    const set: SetSpec = { name: 'aff', key: [addr, addr, 'inet_service', addr, 'inet_service'], timeout: true, dynamic: true };
    const built = rule(family).lookup(['saddr', { ip: vip }, { port: 80 }, { ip: ep }, { port: 8080 }], 'aff').goto('e').build();
    assert.equal(built.text, `${client} . ${vip} . 80 . ${ep} . 8080 @aff goto e`);
    const fields = `${client} . ${family} daddr . th dport . ${family} saddr . th sport`;
    const script = [`add table ${family} t`, `add set ${family} t aff { type ${set.key.join(' . ')}; flags timeout,dynamic; }`,
      `add chain ${family} t e`, `add chain ${family} t writes`, `add chain ${family} t reads`,
      `add rule ${family} t writes update @aff { ${client} . ${vip} . 80 . ${ep} . 8080 timeout 60s }`,
      `add rule ${family} t reads ${fields} @aff goto e`].join('\n') + '\n';
    await withNetns((ns) => {
      const debug = parseNftDebug(ns.exec('nft', ['--debug=netlink', '-f', '-'], script));
      const [update] = debug.get(`${family} t writes`)!;
      const [lookup] = debug.get(`${family} t reads`)!;
      const expected = [...update.slice(0, -1), ...lookup.slice(-2)];
      assert.deepEqual(built.exprs.map(renderExpr), expected);
    });
  });
}
